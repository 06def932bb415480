import t from 'tap';
import { isBatchItemError, SvcApiError, SvcClient } from '../../clients/sdk/index.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const service = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
t.teardown(() => service.stop());
const alice = new SvcClient({
  server: service.url,
  credentials: { token: await mintToken({ sub: 'alice' }, { ttlSeconds: 3600 }) },
});
const text = (s: string) => new TextEncoder().encode(s);
const activeKey = async (spec: Parameters<SvcClient['createKey']>[0]) => {
  const key = await alice.createKey(spec);
  await alice.activateKey(key.id);
  return key.id;
};

t.test('generateDataKey and reencrypt, bytes in and out as Uint8Array', async (t) => {
  const id = await activeKey({ name: 'sdk-envelope', algorithm: 'AES' });
  const made = await alice.generateDataKey(id, { sizeBits: 128, context: { file: 'a.txt' } });
  t.type(made.plaintext, Uint8Array);
  t.equal(made.plaintext!.length, 16);
  t.match(made, { keyVersion: 1, algorithm: 'AesGcm256' });
  t.same(
    (await alice.decrypt(id, made.ciphertext, { file: 'a.txt' })).plaintext,
    made.plaintext,
    'decrypt gives the data key back',
  );
  const sealedOnly = await alice.generateDataKey(id, { plaintext: false });
  t.equal(sealedOnly.plaintext, undefined);

  const destination = await activeKey({ name: 'sdk-destination', algorithm: 'AES' });
  const moved = await alice.reencrypt(id, made.ciphertext, {
    context: { file: 'a.txt' },
    destinationKeyId: destination,
    destinationContext: { file: 'b.txt' },
  });
  t.match(moved, { keyVersion: 1, sourceKeyVersion: 1 });
  t.same((await alice.decrypt(destination, moved.ciphertext, { file: 'b.txt' })).plaintext, made.plaintext);
  const refused = await alice.reencrypt(id, made.ciphertext, { context: { file: 'other' } }).catch((err) => err);
  t.type(refused, SvcApiError);
  t.equal(refused.code, 'DecryptionFailed');
});

t.test(
  'encryptBatch, decryptBatch, signBatch, verifyBatch: results in order, failed items as BatchItemError',
  async (t) => {
    const aes = await activeKey({ name: 'sdk-batch', algorithm: 'AES' });
    const sealed = await alice.encryptBatch(aes, [
      { plaintext: text('one') },
      { plaintext: text('two'), context: { n: '2' } },
    ]);
    t.equal(sealed.length, 2);
    t.notOk(sealed.some(isBatchItemError));
    const ciphertexts = sealed.map((r) => (isBatchItemError(r) ? new Uint8Array() : r.ciphertext));
    const opened = await alice.decryptBatch(aes, [
      { ciphertext: ciphertexts[0]! },
      { ciphertext: ciphertexts[1]!, context: { n: 'wrong' } },
      { ciphertext: ciphertexts[1]!, context: { n: '2' } },
    ]);
    t.match(opened, [
      { plaintext: text('one'), keyVersion: 1 },
      { error: 'DecryptionFailed' },
      { plaintext: text('two') },
    ]);
    t.ok(isBatchItemError(opened[1]!));

    const ed = await activeKey({ name: 'sdk-batch-signer', algorithm: 'EdDSA' });
    const signed = await alice.signBatch(ed, [{ message: text('a') }, { message: text('b'), algorithm: 'HmacSha256' }]);
    t.match(signed, [{ algorithm: 'Ed25519', keyVersion: 1 }, { error: 'InvalidField' }]);
    const signature = isBatchItemError(signed[0]!) ? new Uint8Array() : signed[0]!.signature;
    t.same(
      await alice.verifyBatch(ed, [
        { message: text('a'), signature },
        { message: text('x'), signature },
      ]),
      [
        { valid: true, algorithm: 'Ed25519', keyVersion: 1 },
        { valid: false, algorithm: 'Ed25519' },
      ],
    );

    const tooMany = await alice
      .encryptBatch(
        aes,
        Array.from({ length: 1001 }, () => ({ plaintext: text('x') })),
      )
      .catch((err) => err);
    t.type(tooMany, SvcApiError);
    t.match(tooMany, { status: 400, code: 'InvalidField', message: /more than 1000 items/ });
  },
);
