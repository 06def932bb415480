import t from 'tap';
import { isSvcError, UNTRACED } from '../../kernel/index.ts';
import { keyServicePort, type KeyService } from '../../plugins/keys/key-service.ts';
import { b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';

/**
 * Review of issue 23: a batch reads the key once (KeyBatchCrypto.decryptor) and keeps that ManagedKey;
 * between items it re-checks only the state (stillUsable), never minVersion. A trim committed while the
 * batch runs (a batch of 1000 items yields every 5 ms, so it spans many other calls) then either
 *  - fails the whole batch with a 500 (material of a trimmed version read after the trim: the row is
 *    gone, KeyStore.materialOf throws a plain Error, eachItem rethrows it), or
 *  - keeps decrypting with the trimmed version's material after the trim answered (material read
 *    before it and held by the batch's VersionMaterial).
 * Each item should answer what the single call answers after the trim: IllegalOperation naming it.
 */
t.test('a trim committed while a batch decrypt runs', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const api = svc.client('alice');
  const id = await api.key({ name: 'batch-trim', algorithm: 'AES' });
  const v1a = (await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('one') })).body.ciphertextBase64 as string;
  const v1b = (await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('two') })).body.ciphertextBase64 as string;
  await api.post(`/v1/keys/${id}/rotate`, {});
  await api.post(`/v1/keys/${id}/rotate`, {});
  const batches = svc.kernel.container.resolve<KeyService>(keyServicePort.id).batches;

  const outcome = async (work: Promise<unknown>) => work.then(() => 'decrypted', (err) => (isSvcError(err) ? err.code : `unexpected ${(err as Error).message}`));

  // A batch whose items name version 1 only after the trim (the trim lands between two pauses).
  const late = await batches.decryptor(id, UNTRACED);
  // A batch that read version 1 before the trim.
  const early = await batches.decryptor(id, UNTRACED);
  t.equal(await outcome(early.decrypt(Buffer.from(v1a, 'base64'), {})), 'decrypted', 'before the trim, version 1 decrypts');

  const trimmed = await api.post(`/v1/keys/${id}/trim`, { minVersion: 2 });
  t.equal(trimmed.status, 200, 'the trim answered: version 1 is erased for good');
  t.equal((await api.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: v1b })).body.error, 'IllegalOperation', 'the single call refuses version 1 from now on');

  t.equal(await outcome(late.decrypt(Buffer.from(v1b, 'base64'), {})), 'IllegalOperation', 'an item of the running batch naming version 1: its own IllegalOperation, not a 500 for the batch');
  t.equal(await outcome(early.decrypt(Buffer.from(v1b, 'base64'), {})), 'IllegalOperation', 'and not decrypted with the erased material the batch still holds');
});
