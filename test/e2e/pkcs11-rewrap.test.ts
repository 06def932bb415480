import { execFileSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { SvcClient } from '../../clients/sdk/index.ts';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import { b64 } from '../helpers/client.ts';
import { everyByte } from '../helpers/forensics.ts';
import { privateRedis } from '../helpers/private-redis.ts';
import { spawnService } from '../helpers/process.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { softHsm } from '../helpers/softhsm.ts';
import { makeTestPki } from '../helpers/tls-certs.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';
import { serverEntry } from '../helpers/server-entry.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PIN = '2468-user-pin';
const hsm = softHsm(t);
if (hsm) {
  hsm.initToken('rewrap-token', PIN);
  const token = {
    SVC_CRYPTO_PKCS11_MODULE: hsm.module,
    SVC_CRYPTO_PKCS11_TOKEN_LABEL: 'rewrap-token',
    SVC_CRYPTO_PKCS11_PIN: PIN,
  };
  const pkcs11 = (kek: string, extra: Record<string, string> = {}) => ({
    SVC_CRYPTO_KIND: 'pkcs11',
    ...token,
    SVC_CRYPTO_PKCS11_KEK_LABEL: kek,
    SVC_CRYPTO_LOCAL_KEK: '',
    ...extra,
  });
  const rewrap = (base: Record<string, string>, env: Record<string, string>) =>
    execFileSync(process.execPath, [...serverEntry(), 'rewrap'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH!, ...hsm.env, ...base, ...env },
      encoding: 'utf8',
    });
  const kekIds = (dir: string) => {
    const db = new Database(path.join(dir, 'journal.db'), { readonly: true });
    try {
      return (db.prepare('select kek_id from svc_key_kwk').all() as { kek_id: string }[]).map((r) => r.kek_id);
    } finally {
      db.close();
    }
  };

  t.test(
    'rewrap moves a deployment from the local root of trust to pkcs11, rotates the KEK on the token, and moves back',
    async (t) => {
      const dir = tempDir();
      const local1 = Buffer.alloc(32, 0x41).toString('base64');
      const local2 = Buffer.alloc(32, 0x42).toString('base64');
      const first = await startTestService({ SVC_JOURNAL_KIND: 'rdb-embedded', SVC_CRYPTO_LOCAL_KEK: local1 }, { dir });
      const id = await first.client('ops').key({ algorithm: 'AES' });
      const sealed = (await first.client('ops').post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('travels') }))
        .body.ciphertextBase64;
      await first.stop();
      const base = first.env;
      const opens = async (env: Record<string, string>, why: string) => {
        const svc = await startTestService({ ...env, SVC_JOURNAL_KIND: 'rdb-embedded' }, { dir });
        t.same(
          (await svc.client('ops').post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: sealed })).body.plaintextBase64,
          b64('travels'),
          why,
        );
        await svc.stop();
      };

      t.match(
        rewrap(base, pkcs11('kek-a', { SVC_CRYPTO_PKCS11_CREATE_KEK: 'true', SVC_CRYPTO_LOCAL_PREVIOUS_KEKS: local1 })),
        /^rewrapped 1 key-wrapping key\(s\) under pkcs11:rewrap-token\/kek-a$/m,
        'local -> pkcs11',
      );
      t.same(kekIds(dir), ['pkcs11:rewrap-token/kek-a']);
      await opens(pkcs11('kek-a'), 'the token alone opens it');

      t.match(
        rewrap(
          base,
          pkcs11('kek-b', { SVC_CRYPTO_PKCS11_CREATE_KEK: 'true', SVC_CRYPTO_PKCS11_PREVIOUS_KEK_LABELS: 'kek-a' }),
        ),
        /^rewrapped 1 key-wrapping key\(s\) under pkcs11:rewrap-token\/kek-b$/m,
        'a new KEK on the token',
      );
      t.same(kekIds(dir), ['pkcs11:rewrap-token/kek-b']);
      await opens(pkcs11('kek-b'), 'the new KEK alone opens it');

      t.match(
        rewrap(base, {
          SVC_CRYPTO_KIND: 'in-memory',
          SVC_CRYPTO_LOCAL_KEK: local2,
          ...token,
          SVC_CRYPTO_PKCS11_PREVIOUS_KEK_LABELS: 'kek-b',
        }),
        /^rewrapped 1 key-wrapping key\(s\) under local:[0-9a-f]{16}$/m,
        'pkcs11 -> local',
      );
      t.match(kekIds(dir), [/^local:[0-9a-f]{16}$/]);
      await opens({ SVC_CRYPTO_LOCAL_KEK: local2 }, 'the new local KEK alone opens it');
    },
  );

  t.test('a copy of the data directory holds nothing that opens without the token', async (t) => {
    const dir = tempDir();
    const svc = await startTestService(
      { SVC_JOURNAL_KIND: 'rdb-embedded', ...pkcs11('kek-copy', { SVC_CRYPTO_PKCS11_CREATE_KEK: 'true' }) },
      { dir },
    );
    const api = svc.client('ops');
    const id = await api.key({ algorithm: 'AES', exportable: true });
    const material = Buffer.from((await api.post(`/v1/keys/${id}/export`, {})).body.materialBase64, 'base64');
    const sealed = (await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('the secret') })).body
      .ciphertextBase64;
    await svc.stop();
    const copy = tempDir();
    cpSync(dir, copy, { recursive: true });

    t.notOk(existsSync(path.join(copy, 'kek.key')), 'no KEK file beside the journal');
    t.same(kekIds(copy), ['pkcs11:rewrap-token/kek-copy'], 'the only KWK is wrapped by the token');
    const bytes = everyByte(copy);
    t.notOk(bytes.includes(material), 'the key material is nowhere in the clear');
    t.notOk(bytes.includes(Buffer.from(PIN)), 'nor is the PIN');

    // The attacker's own SoftHSM2 token with the same labels and PIN, and a KEK of the same label: a different KEK.
    const theirs = softHsm(t)!;
    process.env.SOFTHSM2_CONF = hsm.conf;
    theirs.initToken('rewrap-token', PIN);
    const attempt = spawnService({
      ...theirs.env,
      SVC_HTTP_HOST: '127.0.0.1',
      SVC_HTTP_PORT: '0',
      SVC_JOURNAL_KIND: 'rdb-embedded',
      SVC_AUDIT_KIND: 'rdb-embedded',
      SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(copy, 'journal.db')}`,
      SVC_AUDIT_EMBEDDED_PATH: path.join(copy, 'audit.db'),
      SVC_DATA_DIR: copy,
      ...pkcs11('kek-copy', { SVC_CRYPTO_PKCS11_CREATE_KEK: 'true' }),
    });
    t.equal(await attempt.exited, 1, 'a look-alike token does not boot on the copy');
    t.match(
      attempt.stderr(),
      new RegExp(`the KEK pkcs11:rewrap-token/kek-copy cannot unwrap the stored key-wrapping key of key ${id}`),
    );
    const local = await startTestService(
      { SVC_JOURNAL_KIND: 'rdb-embedded', SVC_CRYPTO_LOCAL_KEK: Buffer.alloc(32, 1).toString('base64') },
      { dir: copy },
    ).then(
      async (s) => (await s.stop(), 'booted'),
      (err: Error) => err.message,
    );
    t.match(
      local,
      /cannot unwrap the stored key-wrapping keys: key .* is under KEK pkcs11:rewrap-token\/kek-copy, which is neither the configured KEK nor a listed previous one/,
      'nor does a local KEK',
    );

    const owner = await startTestService({ SVC_JOURNAL_KIND: 'rdb-embedded', ...pkcs11('kek-copy') }, { dir });
    t.teardown(() => owner.stop());
    t.same(
      (await owner.client('ops').post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: sealed })).body.plaintextBase64,
      b64('the secret'),
      'control: with the token the data opens',
    );
  });

  t.test('a production-shaped configuration on pkcs11 boots under enforce on 0.0.0.0 with no finding', async (t) => {
    const redis = await privateRedis(t);
    if (!redis) return;
    t.teardown(() => redis.stop());
    const pki = makeTestPki();
    const svc = spawnService({
      ...hsm.env,
      SVC_HTTP_TLS_CERT_FILE: pki.serverCertFile,
      SVC_HTTP_TLS_KEY_FILE: pki.serverKeyFile,
      SVC_HTTP_HOST: '0.0.0.0',
      SVC_HTTP_PORT: '0',
      SVC_SECURITY_PREFLIGHT: 'enforce',
      SVC_AUTH_KIND: 'hmac',
      SVC_AUTH_HMAC_SECRET: TEST_SECRET,
      SVC_POLICY_KIND: 'role-based',
      SVC_POLICY_ROLE_BINDINGS: JSON.stringify({ 'kms-admins': ['Create', 'Get', 'Activate', 'Encrypt', 'Decrypt'] }),
      ...pkcs11('kek-prod', { SVC_CRYPTO_PKCS11_CREATE_KEK: 'true' }),
      SVC_JOURNAL_KIND: 'rdb-embedded',
      SVC_RDB_EMBEDDED_JDBC_URL: path.join(tempDir(), 'journal.db'),
      SVC_AUDIT_KIND: 'rdb-embedded',
      SVC_REVOCATION_KIND: 'kv-store',
      SVC_REVOCATION_KV_URI: redis.url,
    });
    t.teardown(() => svc.child.kill('SIGKILL'));
    const port = await svc.listening;
    t.notMatch(svc.stderr(), /\[(WARN|FAIL)\]/, 'preflight has nothing to say');
    t.notMatch(svc.stderr(), PIN, 'the PIN is not printed');
    const client = new SvcClient({
      server: `https://127.0.0.1:${port}`,
      credentials: { token: await mintToken({ sub: 'ops', svc_groups: ['kms-admins'] }) },
      tls: { ca: pki.read(pki.caFile) },
    });
    const key = await client.createKey({ name: 'prod', algorithm: 'AES' });
    await client.activateKey(key.id);
    t.equal((await client.encrypt(key.id, new Uint8Array([0, 0, 0]))).keyVersion, 1);
  });
}
