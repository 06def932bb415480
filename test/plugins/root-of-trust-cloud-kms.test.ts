import { Registry } from 'prom-client';
import t from 'tap';
import { rootOfTrustContract } from '../../contracts/root-of-trust.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { CloudKmsRootOfTrust } from '../../plugins/root-of-trust/cloud-kms/cloud-kms-root-of-trust.ts';
import { b64 } from '../helpers/client.ts';
import { startKmsFaultProxy } from '../helpers/kms-fault-proxy.ts';
import { moto, MOTO_REGION } from '../helpers/moto.ts';
import { startTestService, tempDir } from '../helpers/service.ts';

const kms = moto(t);
if (kms) {
  const quiet = createStderrLogger('error', () => {});
  const kekArn = await kms.createKek();
  const open = async () => {
    const rot = new CloudKmsRootOfTrust(
      { region: MOTO_REGION, kekArn, previousKekArns: [], endpoint: kms.endpoint, timeoutMs: 3000 },
      new Registry(),
      quiet,
    );
    await rot.start();
    return rot;
  };

  t.test('cloud-kms passes the root-of-trust conformance suite on moto', async (t) => {
    rootOfTrustContract(t, open, open);
  });

  const serviceEnv = (endpoint: string, kek: string, extra: Record<string, string> = {}) => ({
    SVC_JOURNAL_KIND: 'rdb-embedded',
    SVC_CRYPTO_KIND: 'cloud-kms',
    SVC_CRYPTO_CLOUD_KMS_REGION: MOTO_REGION,
    SVC_CRYPTO_CLOUD_KMS_KEK_ARN: kek,
    SVC_CRYPTO_CLOUD_KMS_ENDPOINT: endpoint,
    ...extra,
  });

  t.test(
    'the key service on cloud-kms: every algorithm works, and keys survive a restart (KWKs unwrapped by KMS)',
    async (t) => {
      const dir = tempDir();
      const first = await startTestService(serviceEnv(kms.endpoint, kekArn), { dir });
      const api = first.client('ops');
      const aes = await api.key({ algorithm: 'AES' });
      const ed = await api.key({ algorithm: 'EdDSA' });
      const sealed = (await api.post(`/v1/keys/${aes}/encrypt`, { plaintextBase64: b64('under cloud kms') })).body
        .ciphertextBase64;
      const sig = (await api.post(`/v1/keys/${ed}/sign`, { messageBase64: b64('m') })).body.signatureBase64;
      t.equal((await api.post(`/v1/keys/${aes}/rotate`, {})).status, 200);
      await first.stop();
      const second = await startTestService(serviceEnv(kms.endpoint, kekArn), { dir });
      t.teardown(() => second.stop());
      const again = second.client('ops');
      t.same((await again.post(`/v1/keys/${aes}/decrypt`, { ciphertextBase64: sealed })).body, {
        plaintextBase64: b64('under cloud kms'),
        keyVersion: 1,
      });
      t.match((await again.post(`/v1/keys/${ed}/verify`, { messageBase64: b64('m'), signatureBase64: sig })).body, {
        valid: true,
      });
      t.equal((await again.get('/readyz')).body.checks.rootOfTrust.ok, true);
      const metrics = (await again.get('/metrics')).body as string;
      t.match(
        metrics,
        /svc_root_of_trust_kms_calls_total\{call="Decrypt",result="ok"\} [1-9]/,
        'KMS calls are counted',
      );
      t.match(metrics, /svc_keys_kwk_cache_total\{result="miss"\} [1-9]/, 'cache misses are counted');
      t.match(metrics, /svc_root_of_trust_kms_call_duration_seconds_count\{call="Decrypt"\} [1-9]/, 'and timed');
    },
  );

  t.test(
    'KEK disabled, KMS throttling or unreachable: 503 with Retry-After, ' +
      '/readyz unready, and recovery without a restart',
    async (t) => {
      const proxy = await startKmsFaultProxy(kms.endpoint);
      t.teardown(() => proxy.close());
      // One cached KWK at most, so that using a key asks KMS again as soon as another key was used.
      const svc = await startTestService(
        serviceEnv(proxy.url, kekArn, { SVC_CRYPTO_CACHE_MAX_ENTRIES: '1', SVC_CRYPTO_CLOUD_KMS_TIMEOUT_MS: '1000' }),
      );
      t.teardown(() => svc.stop());
      const api = svc.client('ops');
      const a = await api.key({ algorithm: 'AES' });
      const b = await api.key({ algorithm: 'AES' });
      for (const mode of ['disabled', 'throttle', 'down'] as const) {
        proxy.mode = mode;
        const refused = await api.post(`/v1/keys/${a}/encrypt`, { plaintextBase64: b64('x') });
        t.equal(refused.status, 503, `${mode}: 503`);
        t.equal(refused.body.error, 'ServiceUnavailable');
        t.match(refused.headers.get('retry-after'), /^[1-9][0-9]*$/, `${mode}: Retry-After in whole seconds`);
        t.notOk(refused.body.ciphertextBase64);
        const ready = await api.get('/readyz');
        t.equal(ready.status, 503, `${mode}: /readyz unready`);
        t.equal(ready.body.checks.rootOfTrust.ok, false);
        proxy.mode = 'pass';
        t.equal(
          (await api.post(`/v1/keys/${a}/encrypt`, { plaintextBase64: b64('x') })).status,
          200,
          `${mode}: works again as soon as KMS does`,
        );
        t.equal((await api.get('/readyz')).status, 200);
        // Use the other key so the next round's key is not cached any more.
        t.equal((await api.post(`/v1/keys/${b}/encrypt`, { plaintextBase64: b64('x') })).status, 200);
      }
    },
  );

  t.test('a compromise drops the cached KWK: the next use of the key asks KMS, which is refused', async (t) => {
    const proxy = await startKmsFaultProxy(kms.endpoint);
    t.teardown(() => proxy.close());
    const svc = await startTestService(serviceEnv(proxy.url, kekArn));
    t.teardown(() => svc.stop());
    const api = svc.client('ops');
    const key = await api.key({ algorithm: 'AES' });
    const sealed = (await api.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') })).body.ciphertextBase64;
    t.equal((await api.post(`/v1/keys/${key}/revoke`, {})).status, 200);
    const before = proxy.calls.filter((c) => c.endsWith('.Decrypt')).length;
    t.equal((await api.post(`/v1/keys/${key}/decrypt`, { ciphertextBase64: sealed })).status, 200);
    t.equal(
      proxy.calls.filter((c) => c.endsWith('.Decrypt')).length,
      before + 1,
      'revoke dropped the KWK from memory; KMS was asked again',
    );
  });

  t.test('a boot with an unusable KEK fails, naming the KEK', async (t) => {
    await t.rejects(
      startTestService(
        serviceEnv(kms.endpoint, 'arn:aws:kms:us-east-1:123456789012:key/00000000-0000-4000-8000-000000000000'),
      ),
      /the cloud KMS KEK arn:aws:kms:us-east-1:123456789012:key\/0{8}-.* is not usable/,
    );
  });
}
