import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { Pkcs11Module } from '../../plugins/root-of-trust/pkcs11/pkcs11-module.ts';
import { spawnService } from '../helpers/process.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { softHsm } from '../helpers/softhsm.ts';
import { until } from '../helpers/until.ts';

const PIN = '4711-user-pin';
const hsm = softHsm(t);
if (hsm) {
  hsm.initToken('svc-token', PIN);
  const pkcs11 = (extra: Record<string, string> = {}) => ({
    SVC_JOURNAL_KIND: 'rdb-embedded',
    SVC_CRYPTO_KIND: 'pkcs11',
    SVC_CRYPTO_PKCS11_MODULE: hsm.module,
    SVC_CRYPTO_PKCS11_TOKEN_LABEL: 'svc-token',
    SVC_CRYPTO_PKCS11_PIN: PIN,
    SVC_CRYPTO_PKCS11_KEK_LABEL: 'svc-kek',
    ...extra,
  });
  const refusal = (env: Record<string, string>) =>
    startTestService(env).then(
      async (svc) => {
        await svc.stop();
        return 'booted';
      },
      (err: Error) => err.message,
    );

  t.test(
    'the first boot creates the KEK on the token; keys encrypt, sign and ' +
      'survive a restart; the token is in metrics and /readyz',
    async (t) => {
      const dir = tempDir();
      const first = await startTestService(pkcs11({ SVC_CRYPTO_PKCS11_CREATE_KEK: 'true' }), { dir });
      const api = first.client('ops');
      const aes = await api.key({ algorithm: 'AES' });
      const ed = await api.key({ algorithm: 'EdDSA' });
      const sealed = (await api.post(`/v1/keys/${aes}/encrypt`, { plaintextBase64: b64('under the hsm') })).body
        .ciphertextBase64;
      const sig = (await api.post(`/v1/keys/${ed}/sign`, { messageBase64: b64('m') })).body.signatureBase64;
      t.equal((await api.post(`/v1/keys/${aes}/rotate`, {})).status, 200);
      t.ok(
        first.logs.some((l) => l.includes('created the KEK \\"svc-kek\\" on the token \\"svc-token\\"')),
        'the creation is logged',
      );
      await first.stop();

      // Without createKek: the KEK made at the first boot is found by its label.
      const second = await startTestService(pkcs11(), { dir });
      t.teardown(() => second.stop());
      const again = second.client('ops');
      t.same((await again.post(`/v1/keys/${aes}/decrypt`, { ciphertextBase64: sealed })).body, {
        plaintextBase64: b64('under the hsm'),
        keyVersion: 1,
      });
      t.match((await again.post(`/v1/keys/${ed}/verify`, { messageBase64: b64('m'), signatureBase64: sig })).body, {
        valid: true,
      });
      t.same(
        (
          await again.post(`/v1/keys/${aes}/decrypt`, {
            ciphertextBase64: (
              await again.post(`/v1/keys/${aes}/encrypt`, { plaintextBase64: b64('v2') })
            ).body.ciphertextBase64,
          })
        ).body,
        { plaintextBase64: b64('v2'), keyVersion: 2 },
      );
      t.equal((await again.get('/readyz')).body.checks.rootOfTrust.ok, true);
      const metrics = (await again.get('/metrics')).body as string;
      t.match(
        metrics,
        /svc_root_of_trust_pkcs11_calls_total\{call="unwrap",result="ok"\} [1-9]/,
        'token calls are counted',
      );
      t.match(metrics, /svc_root_of_trust_pkcs11_call_duration_seconds_count\{call="unwrap"\} [1-9]/, 'and timed');
      t.notOk(
        [...first.logs, ...second.logs].some((l) => l.includes(PIN)),
        'the PIN is in no log line',
      );
    },
  );

  t.test(
    "unwrapped KWKs are cached as for every root of trust, and a revoke drops the key's: its next use asks the token",
    async (t) => {
      const svc = await startTestService(pkcs11());
      t.teardown(() => svc.stop());
      const api = svc.client('ops');
      const unwraps = async () =>
        Number(
          /svc_root_of_trust_pkcs11_calls_total\{call="unwrap",result="ok"\} (\d+)/.exec(
            (await api.get('/metrics')).body as string,
          )?.[1] ?? 0,
        );
      const key = await api.key({ algorithm: 'AES' });
      const sealed = (await api.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') })).body.ciphertextBase64;
      const before = await unwraps();
      t.equal((await api.post(`/v1/keys/${key}/decrypt`, { ciphertextBase64: sealed })).status, 200);
      t.equal(await unwraps(), before, 'a cached KWK: the token is not asked');
      t.equal((await api.post(`/v1/keys/${key}/revoke`, {})).status, 200);
      t.equal((await api.post(`/v1/keys/${key}/decrypt`, { ciphertextBase64: sealed })).status, 200);
      t.equal(await unwraps(), before + 1, 'revoke dropped the KWK from memory; the token unwrapped it again');
    },
  );

  t.test(
    'a wrong PIN, a missing KEK, an unknown token or missing settings stop ' +
      'the boot with a sentence naming the setting, never the PIN',
    async (t) => {
      const wrong = await refusal(pkcs11({ SVC_CRYPTO_PKCS11_PIN: 'not-the-pin-0815' }));
      t.match(
        wrong,
        /crypto\.pkcs11\.pin \(SVC_CRYPTO_PKCS11_PIN or SVC_CRYPTO_PKCS11_PIN_FILE\): the token "svc-token" refused the PIN \(CKR_PIN_INCORRECT\)/,
      );
      t.notMatch(wrong, /not-the-pin-0815/, 'the refused PIN is not repeated');
      t.match(
        await refusal(pkcs11({ SVC_CRYPTO_PKCS11_KEK_LABEL: 'no-such-kek' })),
        /crypto\.pkcs11\.kekLabel \(SVC_CRYPTO_PKCS11_KEK_LABEL\): no key labelled "no-such-kek" on the token "svc-token" \(set SVC_CRYPTO_PKCS11_CREATE_KEK=true/,
      );
      t.match(
        await refusal(pkcs11({ SVC_CRYPTO_PKCS11_TOKEN_LABEL: 'no-such-token' })),
        /crypto\.pkcs11\.tokenLabel \(SVC_CRYPTO_PKCS11_TOKEN_LABEL\): no token labelled "no-such-token" in .*libsofthsm2\.so \(tokens present: "svc-token"\)/,
      );
      t.match(
        await refusal(pkcs11({ SVC_CRYPTO_PKCS11_PREVIOUS_KEK_LABELS: 'gone-kek' })),
        /crypto\.pkcs11\.previousKekLabels \(SVC_CRYPTO_PKCS11_PREVIOUS_KEK_LABELS\): no key labelled "gone-kek"/,
      );
      t.match(
        await refusal(pkcs11({ SVC_CRYPTO_PKCS11_MODULE: '/nonexistent/libpkcs11.so' })),
        /crypto\.pkcs11\.module \(SVC_CRYPTO_PKCS11_MODULE\): the PKCS#11 library \/nonexistent\/libpkcs11\.so cannot be loaded/,
      );
      t.match(
        await refusal(
          pkcs11({ SVC_CRYPTO_PKCS11_PIN: '', SVC_CRYPTO_PKCS11_PIN_FILE: path.join(tempDir(), 'missing-pin') }),
        ),
        /crypto\.pkcs11\.pinFile \(SVC_CRYPTO_PKCS11_PIN_FILE\): .*missing-pin cannot be read \(ENOENT\)/,
      );

      // Missing settings are found by preflight, before anything is opened; the process exits 1.
      const svc = spawnService({
        ...hsm.env,
        SVC_HTTP_HOST: '127.0.0.1',
        SVC_HTTP_PORT: '0',
        SVC_CRYPTO_KIND: 'pkcs11',
        SVC_CRYPTO_PKCS11_PIN: PIN,
      });
      t.equal(await svc.exited, 1);
      for (const missing of [
        'SVC_CRYPTO_PKCS11_MODULE',
        'SVC_CRYPTO_PKCS11_TOKEN_LABEL',
        'SVC_CRYPTO_PKCS11_KEK_LABEL',
      ])
        t.match(svc.stderr(), new RegExp(`crypto\\.kind is pkcs11 but ${missing} is empty`));
      t.notMatch(svc.stderr(), PIN, 'the PIN is not printed');
    },
  );

  t.test("the PIN from a file works; --print-config shows neither it nor the PIN setting's value", async (t) => {
    const pinFile = path.join(tempDir(), 'pin');
    writeFileSync(pinFile, `${PIN}\n`, { mode: 0o600 });
    const svc = await startTestService(pkcs11({ SVC_CRYPTO_PKCS11_PIN: '', SVC_CRYPTO_PKCS11_PIN_FILE: pinFile }));
    t.teardown(() => svc.stop());
    t.equal(
      (await svc.client('ops').post('/v1/keys', { spec: { name: 'pin-from-file', algorithm: 'AES' } })).status,
      201,
    );
    const printed = spawnService({ ...hsm.env, ...pkcs11() }, ['--print-config']);
    t.equal(await printed.exited, 0);
    t.notMatch(printed.stdout(), PIN, 'the PIN is redacted');
    t.match(JSON.parse(printed.stdout()).crypto.pkcs11, {
      module: hsm.module,
      kekLabel: 'svc-kek',
      pin: '[Sensitive]',
    });
  });

  t.test(
    'the token disappears mid-run: 503 with Retry-After and /readyz not ok; ' +
      'it comes back and the same node works again, no restart',
    async (t) => {
      // One cached KWK at most, so that using a key asks the token as soon as another key was used.
      const svc = await startTestService(pkcs11({ SVC_CRYPTO_CACHE_MAX_ENTRIES: '1' }));
      t.teardown(() => svc.stop());
      const api = svc.client('ops');
      const a = await api.key({ algorithm: 'AES' });
      const sealed = (await api.post(`/v1/keys/${a}/encrypt`, { plaintextBase64: b64('x') })).body.ciphertextBase64;
      const b = await api.key({ algorithm: 'AES' });
      t.equal((await api.post(`/v1/keys/${b}/encrypt`, { plaintextBase64: b64('y') })).status, 200);

      hsm.disappear();
      t.teardown(() => {
        try {
          hsm.restore();
        } catch {
          // restored by the test
        }
      });
      const refused = await api.post(`/v1/keys/${a}/decrypt`, { ciphertextBase64: sealed });
      t.equal(refused.status, 503, 'a call that needs the token is 503');
      t.equal(refused.body.error, 'ServiceUnavailable');
      t.match(refused.headers.get('retry-after'), /^[1-9][0-9]*$/, 'with Retry-After in whole seconds');
      t.notOk(refused.body.plaintextBase64);
      t.equal(
        (await api.post('/v1/keys', { spec: { name: 'while-gone', algorithm: 'AES' } })).status,
        503,
        'so is a create (it wraps a new KWK)',
      );
      const ready = await api.get('/readyz');
      t.equal(ready.status, 503, '/readyz is unready');
      t.equal(ready.body.checks.rootOfTrust.ok, false, 'and names the rootOfTrust check');

      hsm.restore();
      await until(async () => (await api.get('/readyz')).status === 200, '/readyz to be ready again');
      t.same(
        (await api.post(`/v1/keys/${a}/decrypt`, { ciphertextBase64: sealed })).body.plaintextBase64,
        b64('x'),
        'the same node decrypts once the token is back',
      );
      t.equal((await api.post('/v1/keys', { spec: { name: 'after', algorithm: 'AES' } })).status, 201);
    },
  );

  t.test(
    'a PIN changed on the token while serving is tried once when re-connecting, then never again until a restart',
    async (t) => {
      hsm.initToken('pin-change', PIN);
      const svc = await startTestService(
        pkcs11({
          SVC_CRYPTO_PKCS11_TOKEN_LABEL: 'pin-change',
          SVC_CRYPTO_PKCS11_CREATE_KEK: 'true',
          SVC_CRYPTO_CACHE_MAX_ENTRIES: '1',
        }),
      );
      t.teardown(() => svc.stop());
      const api = svc.client('ops');
      const a = await api.key({ algorithm: 'AES' });
      await api.key({ algorithm: 'AES' });

      // The security officer changes the user PIN on the token (here through the same library, in the service's login).
      const module = Pkcs11Module.acquire(hsm.module);
      const slot = module.lib
        .C_GetSlotList(true)
        .find((s) => module.lib.C_GetTokenInfo(s).label.trim() === 'pin-change')!;
      const session = module.lib.C_OpenSession(slot, module.api.CKF_SERIAL_SESSION | module.api.CKF_RW_SESSION);
      module.lib.C_SetPIN(session, PIN, 'a-new-pin-9999');
      module.lib.C_CloseSession(session);
      module.release();

      // The token goes away and comes back: re-connecting logs in with the old PIN, which is refused.
      hsm.disappear();
      t.equal((await api.post(`/v1/keys/${a}/encrypt`, { plaintextBase64: b64('x') })).status, 503);
      hsm.restore();
      await until(async () => {
        await api.get('/readyz'); // the readiness probe is what re-connects when no call comes
        return svc.logs.some((l) => l.includes('refused the PIN; not trying again'));
      }, 'the refused PIN to be logged');
      const refused = await api.post(`/v1/keys/${a}/encrypt`, { plaintextBase64: b64('x') });
      t.equal(refused.status, 503, 'calls that need the token answer 503');
      t.match(
        refused.body.message,
        /the token refused the PIN; the service must be restarted with the right one/,
        'without asking the token again',
      );
      t.equal(refused.headers.get('retry-after'), '60');
      t.equal((await api.get('/readyz')).body.checks.rootOfTrust.ok, false, 'and the node stays unready');
      t.equal(svc.logs.filter((l) => l.includes('CKR_PIN_INCORRECT')).length, 1, 'the PIN was tried once');
      t.notOk(
        svc.logs.some((l) => l.includes(PIN) || l.includes('a-new-pin-9999')),
        'neither PIN is logged',
      );
    },
  );
}
