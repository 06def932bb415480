import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { parse } from 'yaml';
import { ApiClient } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { natsServer } from '../helpers/nats-server.ts';
import { privateRedis } from '../helpers/private-redis.ts';
import { startTestService } from '../helpers/service.ts';
import { makeTestPki } from '../helpers/tls-certs.ts';
import { mintToken } from '../helpers/tokens.ts';
import { moto, MOTO_CREDENTIALS, MOTO_REGION } from '../helpers/moto.ts';
import { debianTool } from '../helpers/debian-tool.ts';
import { serverMissing } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

// compose.yaml as the compose tool reads it (podman-compose 1.0 on Debian 12 has no `config`, Debian's
// docker-compose has), then the svc-kms service's own settings booted under preflight enforce against
// real PostgreSQL, Redis, NATS and moto (for AWS KMS) standing in for the compose network's hosts.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);
const SECRETS = {
  SVC_DB_PASSWORD: 'compose-db-password',
  SVC_KMS_REGION: MOTO_REGION,
  SVC_KMS_KEK_ARN: 'arn:aws:kms:us-east-1:123456789012:key/00000000-0000-0000-0000-000000000000',
  SVC_AUTH_HMAC_SECRET: 'compose-hmac-secret-that-is-long-enough-0123456789',
  SVC_REDIS_PASSWORD: 'compose-redis-password',
};

/** `docker-compose config` in a copy of the project folder holding compose.yaml and the given .env. */
async function composeConfig(env: Record<string, string> | undefined): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-compose-'));
  copyFileSync(path.join(ROOT, 'compose.yaml'), path.join(dir, 'compose.yaml'));
  if (env) writeFileSync(path.join(dir, '.env'), Object.entries(env).map(([k, v]) => `${k}=${v}`).join('\n'));
  return run('docker-compose', ['--file', 'compose.yaml', 'config'], { cwd: dir, env: { PATH: process.env.PATH } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err) => ({ code: err.code ?? 1, stdout: err.stdout ?? '', stderr: err.stderr ?? String(err) }),
  );
}

const COMPOSE = debianTool('docker-compose', 'docker-compose');

t.test('compose.yaml is valid, asks for every secret, and only svc-kms publishes a port', async (t) => {
  if (!COMPOSE) return serverMissing(t, 'docker-compose (Debian package docker-compose) is missing and cannot be installed');
  const missing = await composeConfig(undefined);
  t.not(missing.code, 0, 'without a .env the file does not resolve');
  t.match(missing.stderr, /set SVC_DB_PASSWORD in \.env/, 'and says which secret is missing');

  const resolved = await composeConfig(SECRETS);
  t.equal(resolved.code, 0, resolved.stderr);
  const config = parse(resolved.stdout);
  t.same(Object.keys(config.services).sort(), ['nats', 'postgres', 'redis', 'svc-kms']);
  for (const [name, service] of Object.entries<{ ports?: unknown[] }>(config.services)) {
    if (name !== 'svc-kms') t.notOk(service.ports, `${name} is reachable on the compose network only`);
  }
  const env = config.services['svc-kms'].environment as Record<string, string>;
  t.equal(env.SVC_SECURITY_PREFLIGHT, 'enforce');
  t.match(env.SVC_AUTH_KIND, /^(hmac|oidc)$/);
  t.equal(env.SVC_POLICY_KIND, 'role-based');
  t.ok(env.SVC_HTTP_TLS_CERT_FILE || env.SVC_HTTP_TLS_TERMINATED_UPSTREAM === 'true', 'TLS on the listener or ended upstream');
  t.equal(env.SVC_JDBC_PASSWORD, SECRETS.SVC_DB_PASSWORD, 'secrets come from .env');
  t.equal(config.services['svc-kms'].volumes.find((v: string) => v.includes('/var/lib/svc-kms')) !== undefined, true, 'the data volume is mounted');
});

t.test("svc-kms's compose settings boot under preflight enforce and work against PostgreSQL, Redis and NATS", async (t) => {
  if (!COMPOSE) return serverMissing(t, 'docker-compose (Debian package docker-compose) is missing and cannot be installed');
  const resolved = await composeConfig(SECRETS);
  const composed = parse(resolved.stdout).services['svc-kms'].environment as Record<string, string>;
  const [db, redis, nats, kms] = [await freshDatabase(t, 'postgresql'), await privateRedis(t), await natsServer(t), moto(t)];
  if (!db || !redis || !nats || !kms) return;
  t.teardown(() => redis.stop());
  t.teardown(() => nats.stop());
  const pki = makeTestPki();
  // Only what names the compose network's hosts and files changes; every other setting is compose's own.
  const env: Record<string, string> = {
    ...composed,
    ...MOTO_CREDENTIALS,
    // moto stands in for AWS KMS (an endpoint override on a loopback host).
    SVC_CRYPTO_CLOUD_KMS_ENDPOINT: kms.endpoint,
    SVC_CRYPTO_CLOUD_KMS_KEK_ARN: await kms.createKek(),
    SVC_HTTP_PORT: '0',
    SVC_HTTP_TLS_CERT_FILE: pki.serverCertFile,
    SVC_HTTP_TLS_KEY_FILE: pki.serverKeyFile,
    SVC_JDBC_URL: db.url,
    SVC_JDBC_USERNAME: db.user,
    SVC_JDBC_PASSWORD: db.password,
    SVC_REVOCATION_KV_URI: redis.url,
    SVC_AUDIT_MSGSTREAM_SERVERS: nats.url,
  };
  t.equal(env.SVC_SECURITY_PREFLIGHT, 'enforce');
  const svc = await startTestService(env);
  t.teardown(() => svc.stop());
  t.notMatch(svc.logs.join('\n'), /\[(WARN|FAIL)\]/, 'preflight finds nothing to warn about');
  const port = svc.kernel.address!.port;
  const { Agent } = await import('undici');
  const dispatcher = new Agent({ connect: { ca: pki.read(pki.caFile) } });
  const admin = await mintToken({ sub: 'ops', svc_groups: ['kms-admins'] }, { secret: SECRETS.SVC_AUTH_HMAC_SECRET });
  const call = (method: string, route: string, body?: unknown) =>
    fetch(`https://127.0.0.1:${port}${route}`, { method, headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined, dispatcher } as RequestInit);
  const created = await call('POST', '/v1/keys', { spec: { name: 'compose', algorithm: 'AES', sizeBits: 256 } });
  t.equal(created.status, 201, 'an admin creates a key over HTTPS with an HMAC token');
  const encrypt = await call('POST', `/v1/keys/${((await created.json()) as { id: string }).id}/encrypt`, { plaintextBase64: 'aGk=' });
  t.equal(encrypt.status, 403, 'role-based policy: kms-admins may not encrypt');
  t.equal((await new ApiClient(`http://127.0.0.1:${port}`).get('/healthz').catch(() => ({ status: 0 }))).status, 0, 'plain HTTP gets no answer');
  await until(async () => (await nats.messages('SVC_AUDIT').catch(() => [])).length >= 2, 'the audit events in NATS JetStream');
});
