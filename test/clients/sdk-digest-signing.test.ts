import { createHash, createPublicKey, verify } from 'node:crypto';
import t from 'tap';
import { isBatchItemError, SvcApiError, SvcClient } from '../../clients/sdk/index.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/** The TypeScript SDK's signDigest and verifyDigest, and digest items in signBatch and verifyBatch. */

const service = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
t.teardown(() => service.stop());
const alice = new SvcClient({
  server: service.url,
  credentials: { token: await mintToken({ sub: 'alice' }, { ttlSeconds: 3600 }) },
});
const text = (s: string) => new TextEncoder().encode(s);
const sha = (bits: number, s: string) => new Uint8Array(createHash(`sha${bits}`).update(s).digest());

t.test('signDigest gives the signature of the message; verifyDigest checks one', async (t) => {
  const key = await alice.createKey({ name: 'sdk-digest', algorithm: 'RSA', sizeBits: 2048 });
  await alice.activateKey(key.id);
  const signed = await alice.signDigest(key.id, sha(512, 'release.tar'), { algorithm: 'RsaPkcs1Sha512' });
  t.match(signed, { algorithm: 'RsaPkcs1Sha512', keyVersion: 1 });
  t.type(signed.signature, Uint8Array);
  const publicKey = createPublicKey((await alice.publicKey(key.id)).publicKeyPem);
  t.ok(verify('sha512', text('release.tar'), publicKey, signed.signature), 'node verifies it over the message');
  t.match(await alice.verify(key.id, text('release.tar'), signed.signature, { algorithm: 'RsaPkcs1Sha512' }), {
    valid: true,
  });
  const overMessage = await alice.sign(key.id, text('release.tar'));
  t.match(await alice.verifyDigest(key.id, sha(256, 'release.tar'), overMessage.signature), {
    valid: true,
    algorithm: 'RsaPssSha256',
    keyVersion: 1,
  });
  t.match(await alice.verifyDigest(key.id, sha(256, 'other.tar'), overMessage.signature), { valid: false });
  const refused = await alice.signDigest(key.id, sha(256, 'x'), { algorithm: 'RsaPssSha384' }).catch((e) => e);
  t.type(refused, SvcApiError);
  t.match(refused, { status: 400, code: 'InvalidField', message: /48-byte SHA-384/ });
});

t.test('signBatch and verifyBatch take digest items', async (t) => {
  const key = await alice.createKey({ name: 'sdk-digest-batch', algorithm: 'EC', curve: 'secp256k1' });
  await alice.activateKey(key.id);
  const signed = await alice.signBatch(key.id, [
    { digest: sha(256, 'a') },
    { message: text('b') },
    { digest: text('short') },
  ]);
  t.match(signed, [{ algorithm: 'EcdsaSha256' }, { algorithm: 'EcdsaSha256' }, { error: 'InvalidField' }]);
  const signatures = signed.map((r) => (isBatchItemError(r) ? new Uint8Array() : r.signature));
  t.same(
    await alice.verifyBatch(key.id, [
      { message: text('a'), signature: signatures[0]! },
      { digest: sha(256, 'b'), signature: signatures[1]! },
      { digest: sha(256, 'c'), signature: signatures[1]! },
    ]),
    [
      { valid: true, algorithm: 'EcdsaSha256', keyVersion: 1 },
      { valid: true, algorithm: 'EcdsaSha256', keyVersion: 1 },
      { valid: false, algorithm: 'EcdsaSha256' },
    ],
  );
});
