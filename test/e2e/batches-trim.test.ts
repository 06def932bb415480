import t from 'tap';
import { isSvcError, UNTRACED } from '../../kernel/index.ts';
import { keyServicePort, type KeyService } from '../../plugins/keys/key-service.ts';
import { type ApiClient, b64 } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

/**
 * A batch reads its key once, then runs its items, pausing every few milliseconds for other calls
 * (1000 items span many of them). A trim committed meanwhile erases versions for good: from then on an
 * item naming a trimmed version is refused with its own IllegalOperation, as the single call is, never
 * decrypted with material the batch read before the trim, nor a 500 for the whole batch. These tests
 * drive the batch's decryptor and verifier item by item, so that the trim lands between two items.
 */

const batchesOf = (svc: TestService) => svc.kernel.container.resolve<KeyService>(keyServicePort.id).batches;
/**
 * What an item answered: `decrypted`, the refusal's code, or `unexpected …` for anything that is no refusal (a 500).
 */
const outcome = (work: Promise<unknown>) =>
  work.then(
    () => 'decrypted',
    (err) => (isSvcError(err) ? err.code : `unexpected ${(err as Error).message}`),
  );
const bytes = (base64: string) => Buffer.from(base64, 'base64');

/** An AES key with two ciphertexts under version 1, rotated twice (current version 3). */
async function threeVersions(api: ApiClient, name: string) {
  const id = await api.key({ name, algorithm: 'AES' });
  const v1a = (await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('one') })).body
    .ciphertextBase64 as string;
  const v1b = (await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('two') })).body
    .ciphertextBase64 as string;
  await api.post(`/v1/keys/${id}/rotate`, {});
  await api.post(`/v1/keys/${id}/rotate`, {});
  return { id, v1a, v1b };
}

t.test('a trim committed while a batch decrypt runs', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const api = svc.client('alice');
  const { id, v1a, v1b } = await threeVersions(api, 'batch-trim');
  const v3 = (await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('three') })).body
    .ciphertextBase64 as string;

  // A batch whose items name version 1 only after the trim, and one that read version 1 before it.
  const late = await batchesOf(svc).decryptor(id, UNTRACED);
  const early = await batchesOf(svc).decryptor(id, UNTRACED);
  t.equal(await outcome(early.decrypt(bytes(v1a), {})), 'decrypted', 'before the trim, version 1 decrypts');

  t.equal(
    (await api.post(`/v1/keys/${id}/trim`, { minVersion: 2 })).status,
    200,
    'the trim answered: version 1 is erased for good',
  );
  const single = await api.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: v1b });
  t.match(
    single.body,
    { error: 'IllegalOperation', message: /version 1 .* was trimmed/ },
    'the single call refuses version 1 from now on',
  );

  t.equal(
    await outcome(late.decrypt(bytes(v1b), {})),
    'IllegalOperation',
    'an item of the running batch naming version 1: its own IllegalOperation, not a 500 for the batch',
  );
  await t.rejects(
    late.decrypt(bytes(v1b), {}),
    { message: /version 1 .* was trimmed/ },
    'naming the trimmed version, as the single call',
  );
  t.equal(
    await outcome(early.decrypt(bytes(v1b), {})),
    'IllegalOperation',
    'and not decrypted with the erased material the batch still holds',
  );
  t.same(
    (await early.decrypt(bytes(v3), {})).plaintext,
    Buffer.from('three'),
    'the versions kept still decrypt in the same batch',
  );
});

t.test('a trim committed while a batch verify runs', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const api = svc.client('alice');
  const id = await api.key({ name: 'batch-trim-verify', algorithm: 'HMAC' });
  const message = bytes(b64('signed under version 1'));
  const signature = bytes(
    (await api.post(`/v1/keys/${id}/sign`, { messageBase64: message.toString('base64') })).body.signatureBase64,
  );
  await api.post(`/v1/keys/${id}/rotate`, {});
  await api.post(`/v1/keys/${id}/rotate`, {});

  const verifier = await batchesOf(svc).verifier(id, UNTRACED);
  t.match(
    await verifier.verify({ kind: 'message', bytes: message }, signature, undefined, 1),
    { valid: true, keyVersion: 1 },
    'before the trim, version 1 verifies',
  );
  t.equal((await api.post(`/v1/keys/${id}/trim`, { minVersion: 2 })).status, 200, 'the trim answered');
  await t.rejects(
    verifier.verify({ kind: 'message', bytes: message }, signature, undefined, 1),
    { code: 'IllegalOperation', message: /version 1 .* was trimmed/ },
    'an item naming version 1 is refused',
  );
  t.match(
    await verifier.verify({ kind: 'message', bytes: message }, signature, undefined, undefined),
    { valid: false },
    'an item naming no version tries only the versions kept',
  );
});

t.test('a trim of the version a running encrypt or sign batch began with', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const api = svc.client('alice');
  const aes = await api.key({ name: 'batch-trim-encrypt', algorithm: 'AES' });
  const hmac = await api.key({ name: 'batch-trim-sign', algorithm: 'HMAC' });
  const encryptor = await batchesOf(svc).encryptor(aes, UNTRACED);
  const signer = await batchesOf(svc).signer(hmac, UNTRACED);
  t.equal(encryptor.encrypt(Buffer.from('before'), {}).keyVersion, 1, 'the encrypt batch seals under version 1');
  t.equal(
    (await signer.sign({ kind: 'message', bytes: Buffer.from('before') }, undefined)).keyVersion,
    1,
    'the sign batch signs with version 1',
  );
  for (const id of [aes, hmac]) {
    await api.post(`/v1/keys/${id}/rotate`, {});
    await api.post(`/v1/keys/${id}/rotate`, {});
    t.equal(
      (await api.post(`/v1/keys/${id}/trim`, { minVersion: 3 })).status,
      200,
      'rotated twice, then version 1 trimmed',
    );
  }
  t.throws(
    () => encryptor.encrypt(Buffer.from('after'), {}),
    { code: 'IllegalOperation', message: /version 1 .* was trimmed/ },
    'no ciphertext under the trimmed version, which nothing could decrypt',
  );
  await t.rejects(
    signer.sign({ kind: 'message', bytes: Buffer.from('after') }, undefined),
    { code: 'IllegalOperation', message: /version 1 .* was trimmed/ },
    'no signature with the trimmed version, which nothing could verify',
  );
});

t.test('a trim on another node while a batch decrypt runs', async (t) => {
  const db = await freshDatabase(t, 'postgresql');
  if (!db) return;
  const a = await startTestService(db.env);
  const b = await startTestService(db.env);
  t.teardown(async () => {
    await a.stop();
    await b.stop();
  });

  t.test("an item whose version's material node A never read: the material is gone, the item refused", async (t) => {
    // Sealed on node B: node A holds nothing of version 1.
    const { id, v1a } = await threeVersions(b.client('ops'), 'unread');
    const batch = await batchesOf(a).decryptor(id, UNTRACED);
    t.equal(
      (await b.client('ops').post(`/v1/keys/${id}/trim`, { minVersion: 2 })).status,
      200,
      'node B trimmed version 1',
    );
    await t.rejects(
      batch.decrypt(bytes(v1a), {}),
      { code: 'IllegalOperation', message: /version 1 .* was trimmed/ },
      "node A reads the key again when the material is missing: B's trim, not a 500",
    );
  });

  t.test('an item after the pause that read the trim: not decrypted with the material the batch holds', async (t) => {
    const { id, v1a, v1b } = await threeVersions(b.client('ops'), 'held');
    const batch = await batchesOf(a).decryptor(id, UNTRACED);
    t.equal(await outcome(batch.decrypt(bytes(v1a), {})), 'decrypted', 'node A read version 1 before the trim');
    t.equal(
      (await b.client('ops').post(`/v1/keys/${id}/trim`, { minVersion: 2 })).status,
      200,
      'node B trimmed version 1',
    );
    await batchesOf(a).stillUsable(id, 'consume', 'Decrypt', UNTRACED); // the batch's next pause
    await t.rejects(
      batch.decrypt(bytes(v1b), {}),
      { code: 'IllegalOperation', message: /version 1 .* was trimmed/ },
      'the next item naming version 1 is refused',
    );
  });
});
