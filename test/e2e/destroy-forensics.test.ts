import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import knexFactory from 'knex';
import t, { type Test } from 'tap';
import { open } from '../../plugins/keys/crypto/envelope.ts';
import { b64, type ApiClient } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { everyByte, postgresTableFiles, recoverAesMaterial } from '../helpers/forensics.ts';
import { startTestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

/** A key with a ciphertext made before its destroy, compromised and destroyed; and a key that stays. */
async function destroyedKeyWithCiphertext(t: Test, api: ApiClient, serviceUrl: string) {
  const kept = await api.key({ algorithm: 'AES' });
  const id = await api.key({ algorithm: 'AES' });
  const enc = await api.post(`/v1/keys/${id}/encrypt`, {
    plaintextBase64: b64('the secret the destroy must take with it'),
  });
  t.equal((await api.post(`/v1/keys/${id}/compromise`, { reason: 'lost laptop' })).status, 200);
  const destroyed = await api.call('DELETE', `/v1/keys/${id}`);
  t.equal(destroyed.status, 200);
  // Usually the DELETE answers once the files are erased; something in the way (on PostgreSQL an autovacuum
  // of the table holding its lock, another session's snapshot) leaves it to the background retry.
  t.match(destroyed.body.erasure, /^(complete|pending)$/);
  if (destroyed.body.erasure === 'pending') {
    const pending = async () =>
      Number(/^svc_erasure_pending (\d+)$/m.exec(await (await fetch(`${serviceUrl}/metrics`)).text())?.[1]);
    await until(async () => (await pending()) === 0, 'the background erase to complete', 60_000);
  }
  return { kept, id, ciphertext: Buffer.from(enc.body.ciphertextBase64, 'base64') };
}

/** Whether any recovered material decrypts the ciphertext: the destroy failed if so. */
const decryptsWith = (materials: Buffer[], id: string, ciphertext: Buffer) =>
  materials.some((m) => {
    try {
      open(m, id, 1, {}, ciphertext);
      return true;
    } catch {
      return false;
    }
  });

t.test(
  'SQLite: every byte of the data directory after a destroy, with the KEK, does not give the material back',
  async (t) => {
    const svc = await startTestService({ SVC_JOURNAL_KIND: 'rdb-embedded' });
    const api = svc.client('forensic');
    const { kept, id, ciphertext } = await destroyedKeyWithCiphertext(t, api, svc.url);
    const journal = new Database(path.join(svc.dir, 'journal.db'), { readonly: true });
    const materialOf = (keyId: string) =>
      JSON.parse(
        (
          journal.prepare('select payload from svc_key_events where key_id = ? and seq = 1').get(keyId) as {
            payload: string;
          }
        ).payload,
      ).materialId as string;
    const [materialId, keptMaterialId] = [materialOf(id), materialOf(kept)];
    journal.close();
    const kek = Buffer.from(readFileSync(path.join(svc.dir, 'kek.key'), 'utf8').trim(), 'base64');

    const bytes = everyByte(svc.dir);
    t.equal(
      recoverAesMaterial(bytes, kek, kept, keptMaterialId).length > 0,
      true,
      'control: the same search finds the material of a key that was not destroyed',
    );
    const recovered = recoverAesMaterial(bytes, kek, id, materialId);
    t.same(recovered, [], 'no copy of the material, or of its key-wrapping key, is left');
    t.notOk(decryptsWith(recovered, id, ciphertext), 'the ciphertext made before the destroy stays sealed');
    t.equal(
      (await api.post(`/v1/keys/${kept}/encrypt`, { plaintextBase64: b64('x') })).status,
      200,
      'other keys are untouched',
    );
    await svc.stop();
  },
);

t.test(
  "PostgreSQL: the journal tables' pages after a destroy, with the KEK, do not give the material back",
  async (t) => {
    const db = await freshDatabase(t, 'postgresql');
    if (!db) return;
    const svc = await startTestService(db.env);
    t.teardown(() => svc.stop());
    const api = svc.client('forensic');
    const { kept, id, ciphertext } = await destroyedKeyWithCiphertext(t, api, svc.url);
    // As the database superuser: flush, then read the relation files of every journal table.
    const admin = knexFactory({
      client: 'pg',
      connection: process.env.SVC_TEST_PG_ADMIN_URL!.replace(/\/postgres$/, `/${db.url.split('/').pop()}`),
    });
    t.teardown(() => admin.destroy());
    const materialOf = async (keyId: string) =>
      JSON.parse(
        ((await admin('svc_key_events').where({ key_id: keyId, seq: 1 }).first('payload')) as { payload: string })
          .payload,
      ).materialId as string;
    const [materialId, keptMaterialId] = [await materialOf(id), await materialOf(kept)];
    const bytes = await postgresTableFiles(admin, [
      'svc_key_kwk',
      'svc_key_material',
      'svc_key_events',
      'svc_audit_outbox',
    ]);
    const kek = Buffer.from(db.env.SVC_CRYPTO_LOCAL_KEK!, 'base64');
    t.equal(
      recoverAesMaterial(bytes, kek, kept, keptMaterialId).length > 0,
      true,
      'control: the same search finds the material of a key that was not destroyed',
    );
    const recovered = recoverAesMaterial(bytes, kek, id, materialId);
    t.same(recovered, [], 'no page keeps the material or its key-wrapping key');
    t.notOk(decryptsWith(recovered, id, ciphertext));
  },
);
