import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { parse } from 'yaml';
import { ROUTES, type ConsolePart, type Route } from '../../console/src/routes.ts';
import type { Operation } from '../../kernel/index.ts';
import { ApiClient } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { natsServer } from '../helpers/nats-server.ts';
import { privateRedis } from '../helpers/private-redis.ts';
import { startTestService } from '../helpers/service.ts';
import { makeTestPki } from '../helpers/tls-certs.ts';
import { moto, MOTO_CREDENTIALS, MOTO_REGION } from '../helpers/moto.ts';
import { debianTool } from '../helpers/debian-tool.ts';
import { spawnService } from '../helpers/process.ts';
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
async function composeConfig(
  env: Record<string, string> | undefined,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-compose-'));
  copyFileSync(path.join(ROOT, 'compose.yaml'), path.join(dir, 'compose.yaml'));
  if (env)
    writeFileSync(
      path.join(dir, '.env'),
      Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n'),
    );
  return run('docker-compose', ['--file', 'compose.yaml', 'config'], {
    cwd: dir,
    env: { PATH: process.env.PATH },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err) => ({ code: err.code ?? 1, stdout: err.stdout ?? '', stderr: err.stderr ?? String(err) }),
  );
}

const COMPOSE = debianTool('docker-compose', 'docker-compose');

t.test('compose.yaml is valid, asks for every secret, and only svc-kms publishes a port', async (t) => {
  if (!COMPOSE)
    return serverMissing(t, 'docker-compose (Debian package docker-compose) is missing and cannot be installed');
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
  t.ok(
    env.SVC_HTTP_TLS_CERT_FILE || env.SVC_HTTP_TLS_TERMINATED_UPSTREAM === 'true',
    'TLS on the listener or ended upstream',
  );
  t.equal(env.SVC_JDBC_PASSWORD, SECRETS.SVC_DB_PASSWORD, 'secrets come from .env');
  t.equal(
    config.services['svc-kms'].volumes.find((v: string) => v.includes('/var/lib/svc-kms')) !== undefined,
    true,
    'the data volume is mounted',
  );
});

/** Which of compose's groups uses which part of the console (routes.ts): duties apart, as the file's comment says. */
const PARTS_OF: Record<string, ConsolePart[]> = {
  'kms-admins': ['find-keys', 'manage-keys', 'agents', 'access-keys', 'audit', 'advisor'],
  'crypto-users': ['find-keys', 'use-keys'],
  auditors: ['audit', 'advisor'],
  'policy-admins': ['policy'],
};

t.test('every call the web console makes is granted to the compose group that uses that part of it', async (t) => {
  const composed = parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8')).services['svc-kms'].environment;
  const bindings = JSON.parse(composed.SVC_POLICY_ROLE_BINDINGS) as Record<string, Operation[]>;
  // The service's own registry says which operation (and which others, for re-encryption) each route runs.
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const operations = svc.kernel.pipeline.list();
  const operationsOf = (r: Route): Operation[] => {
    const def = operations.find((d) => d.http?.method === r.method && d.http.path === r.path);
    if (!def) throw new Error(`the console calls ${r.method} ${r.path}, which the service does not serve`);
    return [def.operation, ...(def.attributes?.alsoNeeds ?? [])];
  };
  const routes = Object.values(ROUTES) as Route[];
  const needs = (parts: ConsolePart[]) => new Set(routes.filter((r) => parts.includes(r.part)).flatMap(operationsOf));

  t.same(
    [...new Set(Object.values(PARTS_OF).flat())].sort(),
    [...new Set(routes.map((r) => r.part))].sort(),
    'every part of the console has a group',
  );
  for (const [group, parts] of Object.entries(PARTS_OF)) {
    for (const op of needs(parts))
      t.ok(bindings[group]?.includes(op), `${group} may ${op} (the console's ${parts.join(', ')})`);
  }
  // Least privilege: crypto-users get what their part of the console needs, plus wrap and unwrap for
  // envelope encryption, and nothing that changes a key's life, exports it or reads the audit trail.
  t.same(
    [...bindings['crypto-users']!].sort(),
    [...new Set([...needs(PARTS_OF['crypto-users']!), 'Wrap', 'Unwrap'])].sort(),
    'crypto-users: nothing more',
  );
  t.notOk(
    bindings['kms-admins']!.some((op) => needs(['use-keys']).has(op)),
    'kms-admins use no key',
  );

  // Nothing in the console reaches the API around the table (call() takes a route; no path is written elsewhere).
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? sources(path.join(dir, e.name)) : [path.join(dir, e.name)],
    );
  const elsewhere = sources(path.join(ROOT, 'console/src')).filter(
    (f) => !f.endsWith('routes.ts') && /['"`]\/v1\//.test(readFileSync(f, 'utf8')),
  );
  t.same(
    elsewhere.map((f) => path.relative(ROOT, f)),
    [],
    'every API path of the console is in console/src/routes.ts',
  );
});

t.test(
  "svc-kms's compose settings boot under preflight enforce and work against PostgreSQL, Redis and NATS",
  async (t) => {
    if (!COMPOSE)
      return serverMissing(t, 'docker-compose (Debian package docker-compose) is missing and cannot be installed');
    const resolved = await composeConfig(SECRETS);
    const composed = parse(resolved.stdout).services['svc-kms'].environment as Record<string, string>;
    const [db, redis, nats, kms] = [
      await freshDatabase(t, 'postgresql'),
      await privateRedis(t),
      await natsServer(t),
      moto(t),
    ];
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
    // The first tokens, minted as docs/install.md says: the server's own issue-token with the deployment's settings.
    const issue = async (subject: string, groups: string) => {
      const run = spawnService(env, ['issue-token', '--subject', subject, '--groups', groups, '--ttl', '1h']);
      const code = await run.exited;
      t.equal(code, 0, code === 0 ? `issue-token mints ${subject}'s token` : run.stderr());
      return run.stdout().trim();
    };
    const as = (token: string) => (method: string, route: string, body?: unknown) =>
      fetch(`https://127.0.0.1:${port}${route}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
        dispatcher,
      } as RequestInit);
    const admin = as(await issue('ops', 'kms-admins'));
    const app = as(await issue('bob', 'crypto-users'));
    const created = await admin('POST', '/v1/keys', { spec: { name: 'compose', algorithm: 'AES', sizeBits: 256 } });
    t.equal(created.status, 201, 'an admin creates a key over HTTPS with an HMAC token');
    const id = ((await created.json()) as { id: string }).id;
    t.equal((await admin('GET', '/v1/keys')).status, 200, "the console's Keys page (GET /v1/keys) works for the admin");
    t.equal((await admin('POST', `/v1/keys/${id}/activate`)).status, 200);
    t.equal(
      (await admin('POST', `/v1/keys/${id}/encrypt`, { plaintextBase64: 'aGk=' })).status,
      403,
      'role-based policy: kms-admins may not encrypt',
    );
    t.equal((await app('GET', '/v1/keys?name=compose')).status, 200, 'crypto-users find keys');
    t.equal(
      (await app('POST', `/v1/keys/${id}/encrypt`, { plaintextBase64: 'aGk=', context: { app: 'billing' } })).status,
      200,
      'and use them',
    );
    t.equal(
      (await app('POST', `/v1/keys/${id}/wrap`, { dekBase64: Buffer.alloc(32, 1).toString('base64') })).status,
      200,
      'wrap a data key',
    );
    t.equal((await app('POST', `/v1/keys/${id}/rotate`, {})).status, 403, 'but change no key');
    t.equal((await app('GET', '/v1/audit')).status, 403, 'nor read the audit trail');
    t.equal(
      (await new ApiClient(`http://127.0.0.1:${port}`).get('/healthz').catch(() => ({ status: 0 }))).status,
      0,
      'plain HTTP gets no answer',
    );
    await until(
      async () => (await nats.messages('SVC_AUDIT').catch(() => [])).length >= 2,
      'the audit events in NATS JetStream',
    );
  },
);
