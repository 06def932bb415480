import path from 'node:path';
import t from 'tap';
import { SvcClient } from '../../clients/sdk/index.ts';
import { MOTO_CREDENTIALS, MOTO_REGION, moto } from '../helpers/moto.ts';
import { privateRedis } from '../helpers/private-redis.ts';
import { spawnService } from '../helpers/process.ts';
import { tempDir } from '../helpers/service.ts';
import { makeTestPki } from '../helpers/tls-certs.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const kms = moto(t);
if (kms) {
  t.test(
    'a production-shaped configuration (HTTPS, hmac, role-based, cloud-kms, ' +
      'SQL journal, Redis revocation) boots under enforce on 0.0.0.0 with no finding',
    async (t) => {
      const redis = await privateRedis(t);
      if (!redis) return;
      t.teardown(() => redis.stop());
      const pki = makeTestPki();
      const svc = spawnService({
        ...MOTO_CREDENTIALS,
        SVC_HTTP_TLS_CERT_FILE: pki.serverCertFile,
        SVC_HTTP_TLS_KEY_FILE: pki.serverKeyFile,
        SVC_HTTP_HOST: '0.0.0.0',
        SVC_HTTP_PORT: '0',
        SVC_SECURITY_PREFLIGHT: 'enforce',
        SVC_AUTH_KIND: 'hmac',
        SVC_AUTH_HMAC_SECRET: TEST_SECRET,
        SVC_POLICY_KIND: 'role-based',
        SVC_POLICY_ROLE_BINDINGS: JSON.stringify({ 'kms-admins': ['Create', 'Get', 'Activate', 'Encrypt', 'Decrypt'] }),
        SVC_CRYPTO_KIND: 'cloud-kms',
        SVC_CRYPTO_CLOUD_KMS_REGION: MOTO_REGION,
        SVC_CRYPTO_CLOUD_KMS_KEK_ARN: await kms.createKek(),
        SVC_CRYPTO_CLOUD_KMS_ENDPOINT: kms.endpoint,
        SVC_JOURNAL_KIND: 'rdb-embedded',
        SVC_RDB_EMBEDDED_JDBC_URL: path.join(tempDir(), 'journal.db'),
        SVC_AUDIT_KIND: 'rdb-embedded',
        SVC_REVOCATION_KIND: 'kv-store',
        SVC_REVOCATION_KV_URI: redis.url,
      });
      t.teardown(() => svc.child.kill('SIGKILL'));
      const port = await svc.listening;
      t.notMatch(svc.stderr(), /\[(WARN|FAIL)\]/, 'preflight has nothing to say');
      const token = await mintToken({ sub: 'ops', svc_groups: ['kms-admins'] });
      const client = new SvcClient({
        server: `https://127.0.0.1:${port}`,
        credentials: { token },
        tls: { ca: pki.read(pki.caFile) },
      });
      const key = await client.createKey({ name: 'prod', algorithm: 'AES' });
      await client.activateKey(key.id);
      t.equal((await client.encrypt(key.id, new Uint8Array([0, 0, 0]))).keyVersion, 1);
    },
  );
}

t.test(
  'development defaults on 0.0.0.0 under enforce are refused, and the advice names only what exists',
  async (t) => {
    const svc = spawnService({ SVC_HTTP_HOST: '0.0.0.0', SVC_HTTP_PORT: '0', SVC_SECURITY_PREFLIGHT: 'enforce' });
    t.equal(await svc.exited, 1);
    const banner = svc.stderr();
    t.match(banner, /refusing to boot/);
    for (const advice of banner.matchAll(/SVC_[A-Z_]+=([a-z0-9-]+)/g)) {
      t.ok(
        [
          'true',
          'cloud-kms',
          'pkcs11',
          'hmac',
          'oidc',
          'role-based',
          'rdb-server-1',
          'rdb-server-2',
          'rdb-embedded',
        ].includes(advice[1]!),
        `advised value ${advice[0]} is one this build has`,
      );
    }
  },
);
