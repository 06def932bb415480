import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';

const svc = await startTestService();
t.teardown(() => svc.stop());
const api = svc.client();

const SIGNING: Array<[Record<string, unknown>, string[]]> = [
  [
    { algorithm: 'RSA', sizeBits: 2048 },
    ['RsaPssSha256', 'RsaPssSha384', 'RsaPssSha512', 'RsaPkcs1Sha256', 'RsaPkcs1Sha384', 'RsaPkcs1Sha512'],
  ],
  [{ algorithm: 'RSA', sizeBits: 3072 }, ['RsaPssSha256']],
  [{ algorithm: 'RSA', sizeBits: 4096 }, ['RsaPssSha256']],
  [{ algorithm: 'EC', curve: 'P-256' }, ['EcdsaSha256', 'EcdsaSha384']],
  [{ algorithm: 'EC', curve: 'P-384' }, ['EcdsaSha384']],
  [{ algorithm: 'EC', curve: 'P-521' }, ['EcdsaSha512']],
  [{ algorithm: 'EC', curve: 'secp256k1' }, ['EcdsaSha256']],
  [{ algorithm: 'EdDSA', curve: 'Ed25519' }, ['Ed25519']],
  [{ algorithm: 'EdDSA', curve: 'Ed448' }, ['Ed448']],
  [{ algorithm: 'HMAC', sizeBits: 256 }, ['HmacSha256']],
  [{ algorithm: 'HMAC', sizeBits: 384 }, ['HmacSha384']],
  [{ algorithm: 'HMAC', sizeBits: 512 }, ['HmacSha512']],
];

for (const [spec, algorithms] of SIGNING) {
  t.test(`${JSON.stringify(spec)}: sign and verify with ${algorithms.join(', ')}`, async (t) => {
    const id = await api.key(spec);
    const message = b64(`message for ${JSON.stringify(spec)}`);
    const dflt = await api.post(`/v1/keys/${id}/sign`, { messageBase64: message });
    t.equal(dflt.status, 200);
    t.equal(dflt.body.algorithm, algorithms[0], 'default algorithm');
    for (const algorithm of algorithms) {
      const sig = await api.post(`/v1/keys/${id}/sign`, { messageBase64: message, algorithm });
      t.match(sig.body, { algorithm, keyVersion: 1 });
      const ok = await api.post(`/v1/keys/${id}/verify`, {
        messageBase64: message,
        signatureBase64: sig.body.signatureBase64,
        algorithm,
      });
      t.same(ok.body, { valid: true, algorithm, keyVersion: 1 });
      const bad = await api.post(`/v1/keys/${id}/verify`, {
        messageBase64: b64('tampered'),
        signatureBase64: sig.body.signatureBase64,
        algorithm,
      });
      t.equal(bad.status, 200);
      t.same(bad.body, { valid: false, algorithm });
    }
  });
}

t.test('signatures verify with OpenSSL against the published public key', async (t) => {
  const dir = svc.dir;
  const message = Buffer.from('verified outside the service');
  writeFileSync(path.join(dir, 'msg'), message);
  const cases: Array<[Record<string, unknown>, string, string[]]> = [
    [{ algorithm: 'EC', curve: 'P-256' }, 'EcdsaSha256', ['dgst', '-sha256']],
    [
      { algorithm: 'RSA', sizeBits: 2048 },
      'RsaPssSha256',
      ['dgst', '-sha256', '-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:32'],
    ],
    [{ algorithm: 'RSA', sizeBits: 2048 }, 'RsaPkcs1Sha384', ['dgst', '-sha384']],
    [{ algorithm: 'RSA', sizeBits: 3072 }, 'RsaPkcs1Sha512', ['dgst', '-sha512']],
    [{ algorithm: 'EdDSA' }, 'Ed25519', ['pkeyutl', '-rawin']],
  ];
  for (const [spec, algorithm, args] of cases) {
    const id = await api.key(spec);
    const sig = await api.post(`/v1/keys/${id}/sign`, { messageBase64: message.toString('base64'), algorithm });
    const pub = await api.get(`/v1/keys/${id}/public-key`);
    t.match(pub.body.publicKeyPem, /^-----BEGIN PUBLIC KEY-----/);
    writeFileSync(path.join(dir, 'pub.pem'), pub.body.publicKeyPem);
    writeFileSync(path.join(dir, 'sig'), Buffer.from(sig.body.signatureBase64, 'base64'));
    const verifyArgs =
      args[0] === 'pkeyutl'
        ? ['pkeyutl', '-verify', '-pubin', '-inkey', 'pub.pem', '-rawin', '-in', 'msg', '-sigfile', 'sig']
        : [...args, '-verify', 'pub.pem', '-signature', 'sig', 'msg'];
    const out = execFileSync('openssl', verifyArgs, { cwd: dir }).toString();
    t.match(out, /Verified OK|Signature Verified Successfully/, algorithm);
  }
});

t.test('an algorithm that does not fit the key is InvalidField', async (t) => {
  const ec = await api.key({ algorithm: 'EC' });
  const hmac = await api.key({ algorithm: 'HMAC', sizeBits: 256 });
  for (const [id, algorithm] of [
    [ec, 'RsaPssSha256'],
    [ec, 'Ed25519'],
    [hmac, 'HmacSha512'],
    [ec, 'Nope'],
  ]) {
    const res = await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m'), algorithm });
    t.equal(res.status, 400);
    t.equal(res.body.error, 'InvalidField', `${algorithm}`);
  }
  const aes = await api.key({ algorithm: 'AES' });
  t.equal(
    (await api.post(`/v1/keys/${aes}/sign`, { messageBase64: b64('m') })).body.error,
    'InvalidField',
    'AES does not sign',
  );
  t.equal(
    (await api.post(`/v1/keys/${ec}/encrypt`, { plaintextBase64: b64('m') })).body.error,
    'InvalidField',
    'EC does not encrypt',
  );
});

for (const sizeBits of [128, 192, 256]) {
  t.test(`AES-${sizeBits}: encrypt/decrypt round trip bound to its context`, async (t) => {
    const id = await api.key({ algorithm: 'AES', sizeBits });
    const context = { tenant: 'acme', purpose: 'invoices' };
    const enc = await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('attack at dawn'), context });
    t.match(enc.body, { keyVersion: 1, algorithm: `AesGcm${sizeBits}` });
    t.notOk(enc.body.ciphertextBase64.includes(b64('attack at dawn')));
    const dec = await api.post(`/v1/keys/${id}/decrypt`, {
      ciphertextBase64: enc.body.ciphertextBase64,
      context: { purpose: 'invoices', tenant: 'acme' },
    });
    t.same(dec.body, { plaintextBase64: b64('attack at dawn'), keyVersion: 1 });
    const wrongContext = await api.post(`/v1/keys/${id}/decrypt`, {
      ciphertextBase64: enc.body.ciphertextBase64,
      context: { tenant: 'evil' },
    });
    const tampered = Buffer.from(enc.body.ciphertextBase64, 'base64');
    tampered[tampered.length - 1]! ^= 1;
    const flipped = await api.post(`/v1/keys/${id}/decrypt`, {
      ciphertextBase64: tampered.toString('base64'),
      context,
    });
    const garbage = await api.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: b64('not an envelope'), context });
    for (const res of [wrongContext, flipped, garbage]) {
      t.equal(res.status, 400);
      t.same(res.body, {
        error: 'DecryptionFailed',
        message: 'the ciphertext could not be decrypted with this key and context',
      });
    }
  });
}

t.test('ciphertext of one key does not decrypt under another', async (t) => {
  const a = await api.key({ algorithm: 'AES' });
  const b = await api.key({ algorithm: 'AES' });
  const enc = await api.post(`/v1/keys/${a}/encrypt`, { plaintextBase64: b64('x') });
  t.equal(
    (await api.post(`/v1/keys/${b}/decrypt`, { ciphertextBase64: enc.body.ciphertextBase64 })).body.error,
    'DecryptionFailed',
  );
  const wrapped = await api.post(`/v1/keys/${a}/wrap`, { dekBase64: b64('0123456789abcdef') });
  t.equal(
    (await api.post(`/v1/keys/${b}/unwrap`, { wrappedDekBase64: wrapped.body.wrappedDekBase64 })).body.error,
    'DecryptionFailed',
  );
});

t.test('plaintext over 64 KiB and text that is not base64 are InvalidField', async (t) => {
  const id = await api.key({ algorithm: 'AES' });
  const big = await api.post(`/v1/keys/${id}/encrypt`, {
    plaintextBase64: Buffer.alloc(64 * 1024 + 1).toString('base64'),
  });
  t.equal(big.body.error, 'InvalidField');
  const ok = await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: Buffer.alloc(64 * 1024).toString('base64') });
  t.equal(ok.status, 200);
  const notB64 = await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: 'not base64!' });
  t.same(notB64.body, { error: 'InvalidField', message: 'plaintextBase64 is not valid standard base64' });
});

t.test('wrap/unwrap returns the data key byte for byte, in both request shapes', async (t) => {
  const id = await api.key({ algorithm: 'AES' });
  const dek = Buffer.from('00112233445566778899aabbccddeeff0011223344556677', 'hex');
  const a = await api.post(`/v1/keys/${id}/wrap`, { dekBase64: dek.toString('base64') });
  t.match(a.body, { keyVersion: 1, algorithm: 'AesKeyWrap256' });
  const b = await api.post(`/v1/keys/${id}/wrap`, { plaintextBase64: dek.toString('base64') });
  for (const body of [{ wrappedDekBase64: a.body.wrappedDekBase64 }, { wrappedKeyBase64: b.body.wrappedDekBase64 }]) {
    const un = await api.post(`/v1/keys/${id}/unwrap`, body);
    t.same(un.body, { dekBase64: dek.toString('base64'), keyVersion: 1 });
  }
  for (const bad of [Buffer.alloc(8), Buffer.alloc(17), Buffer.alloc(520)]) {
    t.equal(
      (await api.post(`/v1/keys/${id}/wrap`, { dekBase64: bad.toString('base64') })).body.error,
      'InvalidField',
      `${bad.length} bytes`,
    );
  }
  t.equal((await api.post(`/v1/keys/${id}/wrap`, {})).body.error, 'BadRequest');
});

t.test(
  'after rotation old material still verifies, decrypts and unwraps; new output reports the new version',
  async (t) => {
    const aes = await api.key({ algorithm: 'AES' });
    const ec = await api.key({ algorithm: 'EC' });
    const enc1 = await api.post(`/v1/keys/${aes}/encrypt`, { plaintextBase64: b64('v1 data') });
    const wrap1 = await api.post(`/v1/keys/${aes}/wrap`, { dekBase64: b64('0123456789abcdef') });
    const sig1 = await api.post(`/v1/keys/${ec}/sign`, { messageBase64: b64('m') });
    const rot = await api.post(`/v1/keys/${aes}/rotate`, { policy: 'Manual' });
    t.match(rot.body, { id: aes, state: 'Active', previousVersion: 1, currentVersion: 2 });
    await api.post(`/v1/keys/${ec}/rotate`, { reason: 'yearly' });
    t.equal((await api.get(`/v1/keys/${aes}`)).body.currentVersion, 2);
    t.same((await api.post(`/v1/keys/${aes}/decrypt`, { ciphertextBase64: enc1.body.ciphertextBase64 })).body, {
      plaintextBase64: b64('v1 data'),
      keyVersion: 1,
    });
    t.same((await api.post(`/v1/keys/${aes}/unwrap`, { wrappedDekBase64: wrap1.body.wrappedDekBase64 })).body, {
      dekBase64: b64('0123456789abcdef'),
      keyVersion: 1,
    });
    t.match(
      (await api.post(`/v1/keys/${ec}/verify`, { messageBase64: b64('m'), signatureBase64: sig1.body.signatureBase64 }))
        .body,
      { valid: true, keyVersion: 1 },
    );
    t.match(
      (
        await api.post(`/v1/keys/${ec}/verify`, {
          messageBase64: b64('m'),
          signatureBase64: sig1.body.signatureBase64,
          keyVersion: 2,
        })
      ).body,
      { valid: false },
    );
    t.equal((await api.post(`/v1/keys/${aes}/encrypt`, { plaintextBase64: b64('v2') })).body.keyVersion, 2);
    t.equal((await api.post(`/v1/keys/${ec}/sign`, { messageBase64: b64('m') })).body.keyVersion, 2);
    const pub1 = await api.get(`/v1/keys/${ec}/public-key?version=1`);
    const pub2 = await api.get(`/v1/keys/${ec}/public-key`);
    t.equal(pub2.body.keyVersion, 2);
    t.not(pub1.body.publicKeyPem, pub2.body.publicKeyPem);
    t.equal((await api.get(`/v1/keys/${aes}/public-key`)).status, 409, 'symmetric keys have no public key');
  },
);
