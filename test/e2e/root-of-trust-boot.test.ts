import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { startKmsFaultProxy } from '../helpers/kms-fault-proxy.ts';
import { MOTO_CREDENTIALS, MOTO_REGION, moto } from '../helpers/moto.ts';
import { spawnService } from '../helpers/process.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

const kek = () => randomBytes(32).toString('base64');
const DURABLE = { SVC_JOURNAL_KIND: 'rdb-embedded' };

t.test('a local KEK that cannot unwrap the stored key-wrapping keys fails the boot with a sentence', async (t) => {
  const dir = tempDir();
  const right = kek();
  const first = await startTestService({ ...DURABLE, SVC_CRYPTO_LOCAL_KEK: right }, { dir });
  const id = await first.client('ops').key({ algorithm: 'AES' });
  const sealed = (await first.client('ops').post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('kept') })).body
    .ciphertextBase64;
  await first.stop();

  const wrong = await startTestService({ ...DURABLE, SVC_CRYPTO_LOCAL_KEK: kek() }, { dir }).then(
    async (svc) => {
      await svc.stop();
      return 'booted';
    },
    (err: Error) => err.message,
  );
  t.match(
    wrong,
    new RegExp(
      `the configured KEK \\(local:[0-9a-f]{16}\\) cannot unwrap the stored key-wrapping keys: key ${id}'s is under KEK local:[0-9a-f]{16}, which is neither the configured KEK nor a listed previous one`,
    ),
    'the boot fails, naming the key and both KEKs',
  );

  const rotated = await startTestService(
    { ...DURABLE, SVC_CRYPTO_LOCAL_KEK: kek(), SVC_CRYPTO_LOCAL_PREVIOUS_KEKS: right },
    { dir },
  );
  t.teardown(() => rotated.stop());
  t.equal(
    (await rotated.client('ops').post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: sealed })).body.plaintextBase64,
    b64('kept'),
    'with the right KEK listed as previous, it boots and decrypts',
  );
});

t.test(
  'a kek.key from another node beside journal.db: the process exits 1 and says why, before listening',
  async (t) => {
    const dir = tempDir();
    const env = {
      SVC_HTTP_HOST: '127.0.0.1',
      SVC_HTTP_PORT: '0',
      SVC_JOURNAL_KIND: 'rdb-embedded',
      SVC_AUDIT_KIND: 'rdb-embedded',
      SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(dir, 'journal.db')}`,
      SVC_DATA_DIR: dir,
    };
    const first = await startTestService(env, { dir });
    await first.client('ops').key({ algorithm: 'EdDSA' });
    await first.stop();
    writeFileSync(path.join(dir, 'kek.key'), kek(), { mode: 0o600 });
    const svc = spawnService(env);
    t.teardown(() => svc.child.kill('SIGKILL'));
    const outcome = await Promise.race([
      svc.exited.then((code) => `exited with ${code}`),
      svc.listening.then(
        () => 'listening',
        () => new Promise<never>(() => {}),
      ),
    ]);
    t.equal(outcome, 'exited with 1', 'the boot fails instead of serving');
    t.match(svc.stderr(), /the configured KEK \(local:[0-9a-f]{16}\) cannot unwrap the stored key-wrapping keys/);
    t.notMatch(svc.stderr(), /"msg":"listening"/, 'it never served a call');
  },
);

const kms = moto(t);
if (kms) {
  const cloudEnv = (endpoint: string, arn: string) => ({
    ...MOTO_CREDENTIALS,
    ...DURABLE,
    SVC_CRYPTO_KIND: 'cloud-kms',
    SVC_CRYPTO_CLOUD_KMS_REGION: MOTO_REGION,
    SVC_CRYPTO_CLOUD_KMS_KEK_ARN: arn,
    SVC_CRYPTO_CLOUD_KMS_ENDPOINT: endpoint,
    SVC_CRYPTO_CLOUD_KMS_TIMEOUT_MS: '1000',
  });

  for (const mode of ['disabled', 'down'] as const) {
    t.test(
      `cloud-kms with the KEK ${mode === 'disabled' ? 'disabled' : 'unreachable'} at boot: the node boots, answers 503 with /readyz naming rootOfTrust, and recovers by itself`,
      async (t) => {
        const proxy = await startKmsFaultProxy(kms.endpoint);
        t.teardown(() => proxy.close());
        const arn = await kms.createKek();
        const dir = tempDir();
        const first = await startTestService(cloudEnv(proxy.url, arn), { dir });
        const id = await first.client('ops').key({ algorithm: 'AES' });
        const sealed = (await first.client('ops').post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('kept') })).body
          .ciphertextBase64;
        await first.stop();

        proxy.mode = mode;
        const svc = await startTestService(cloudEnv(proxy.url, arn), { dir });
        t.teardown(() => svc.stop());
        const api = svc.client('ops');
        const ready = await api.get('/readyz');
        t.equal(ready.status, 503, '/readyz is unready');
        t.equal(ready.body.checks.rootOfTrust.ok, false, 'and names the rootOfTrust check');
        const refused = await api.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: sealed });
        t.equal(refused.status, 503, 'a call that needs the KEK is 503, not 500');
        t.equal(refused.body.error, 'ServiceUnavailable');
        t.match(refused.headers.get('retry-after'), /^[1-9][0-9]*$/);
        t.equal(
          (await api.post('/v1/keys', { spec: { name: 'while-down', algorithm: 'AES' } })).status,
          503,
          'so is a create',
        );

        proxy.mode = 'pass';
        await until(async () => (await api.get('/readyz')).status === 200, '/readyz to be ready again');
        t.equal(
          (await api.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: sealed })).body.plaintextBase64,
          b64('kept'),
          'the same node decrypts once the KEK is usable again',
        );
      },
    );
  }
}
