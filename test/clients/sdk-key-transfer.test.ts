import { createHmac, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import t from 'tap';
import { SvcApiError, SvcClient, wrapKeyMaterial } from '../../clients/sdk/index.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const service = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
t.teardown(() => service.stop());
const alice = new SvcClient({
  server: service.url,
  credentials: { token: await mintToken({ sub: 'alice' }, { ttlSeconds: 3600 }) },
});

t.test('importKey wraps raw material client-side and imports it; exportKey gives the bytes back', async (t) => {
  const material = randomBytes(48);
  const key = await alice.importKey(
    { name: 'sdk-imported', algorithm: 'HMAC', sizeBits: 384, exportable: true },
    material,
  );
  t.match(key, { state: 'PreActive', origin: 'imported', spec: { exportable: true } });
  await alice.activateKey(key.id);
  const signed = await alice.sign(key.id, new TextEncoder().encode('m'));
  t.same(Buffer.from(signed.signature), createHmac('sha384', material).update('m').digest());
  const exported = await alice.exportKey(key.id);
  t.match(exported, { id: key.id, keyVersion: 1, format: 'raw' });
  t.same(Buffer.from(exported.material), material);
});

t.test('getImportParameters, wrapKeyMaterial and importWrappedKey step by step', async (t) => {
  const pair = generateKeyPairSync('ed25519');
  const params = await alice.getImportParameters({ algorithm: 'EdDSA', curve: 'Ed25519' });
  t.match(params, {
    wrappingAlgorithm: 'RSA_AES_KEY_WRAP_SHA_256',
    wrappingPublicKeyPem: /^-----BEGIN PUBLIC KEY-----/,
    importToken: /^[A-Za-z0-9_-]{43}$/,
  });
  const wrapped = wrapKeyMaterial(
    params.wrappingPublicKeyPem,
    pair.privateKey.export({ type: 'pkcs8', format: 'der' }),
  );
  t.equal(
    wrapped.length,
    384 + 56,
    'RSA-3072 ciphertext (384 bytes), then the 48-byte PKCS#8 key wrapped with padding (48 + 8)',
  );
  const key = await alice.importWrappedKey({ name: 'sdk-ed25519', algorithm: 'EdDSA' }, params.importToken, wrapped);
  await alice.activateKey(key.id);
  const signed = await alice.sign(key.id, new TextEncoder().encode('m'));
  t.ok(verify(null, Buffer.from('m'), pair.publicKey, Buffer.from(signed.signature)));
  const again = await alice
    .importWrappedKey({ name: 'sdk-ed25519-again', algorithm: 'EdDSA' }, params.importToken, wrapped)
    .catch((err) => err);
  t.type(again, SvcApiError);
  t.match(again, { status: 400, code: 'InvalidField', message: /already used/ });
  const notExportable = await alice.exportKey(key.id).catch((err) => err);
  t.match(notExportable, { status: 409, code: 'IllegalOperation' });
});
