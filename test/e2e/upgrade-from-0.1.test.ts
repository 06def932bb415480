import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import t from 'tap';
import { sealAesGcm } from '../../kernel/crypto/aes-gcm.ts';
import { seal } from '../../plugins/keys/crypto/envelope.ts';
import { b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';

const KEK = Buffer.alloc(32, 0x5a);

t.test(
  'a key written by 0.1 (material under the KEK, no KWK) keeps working, ' +
    'moves under a KWK on first use, and destroys for good',
  async (t) => {
    const env = { SVC_JOURNAL_KIND: 'rdb-embedded', SVC_CRYPTO_LOCAL_KEK: KEK.toString('base64') };
    const boot = await startTestService(env);
    const { dir } = boot;
    await boot.kernel.stop();
    // What 0.1 left in journal.db: the events, and the material wrapped directly under the KEK (format 1).
    const keyId = randomUUID();
    const materialId = randomUUID();
    const secret = randomBytes(32);
    const db = new Database(path.join(dir, 'journal.db'));
    const at = '2026-01-01T00:00:00.000Z';
    const spec = { name: 'from-0.1', algorithm: 'AES', sizeBits: 256, objectType: 'SymmetricKey' };
    const insert = db.prepare(
      'insert into svc_key_events (key_id, seq, type, payload, occurred_at) values (?, ?, ?, ?, ?)',
    );
    insert.run(keyId, 1, 'KeyCreated', JSON.stringify({ type: 'KeyCreated', at, spec, by: 'old', materialId }), at);
    insert.run(keyId, 2, 'KeyActivated', JSON.stringify({ type: 'KeyActivated', at, by: 'old' }), at);
    db.prepare('insert into svc_key_material (key_id, material_id, wrapped) values (?, ?, ?)').run(
      keyId,
      materialId,
      sealAesGcm(KEK, 1, `${keyId}/${materialId}`, secret),
    );
    db.close();
    const oldCiphertext = seal(secret, keyId, 1, { app: 'billing' }, Buffer.from('written by 0.1'));

    const svc = await startTestService(env, { dir });
    t.teardown(() => svc.stop());
    const api = svc.client('ops');
    const dec = await api.post(`/v1/keys/${keyId}/decrypt`, {
      ciphertextBase64: oldCiphertext.toString('base64'),
      context: { app: 'billing' },
    });
    t.same(dec.body, { plaintextBase64: b64('written by 0.1'), keyVersion: 1 }, 'old ciphertext decrypts');
    t.equal((await api.post(`/v1/keys/${keyId}/encrypt`, { plaintextBase64: b64('new') })).status, 200);
    const after = new Database(path.join(dir, 'journal.db'), { readonly: true });
    t.ok(after.prepare('select 1 from svc_key_kwk where key_id = ?').get(keyId), 'the key got a key-wrapping key');
    t.equal(
      (after.prepare('select wrapped from svc_key_material where key_id = ?').get(keyId) as { wrapped: Buffer })
        .wrapped[0],
      3,
      'its material is sealed under it now',
    );
    after.close();
    t.equal((await api.post(`/v1/keys/${keyId}/compromise`, { reason: 'upgrade drill' })).status, 200);
    t.equal((await api.call('DELETE', `/v1/keys/${keyId}`)).status, 200);
    const gone = new Database(path.join(dir, 'journal.db'), { readonly: true });
    t.notOk(
      gone
        .prepare('select 1 from svc_key_material where key_id = ? union all select 1 from svc_key_kwk where key_id = ?')
        .get(keyId, keyId),
      'destroy erased both',
    );
    gone.close();
  },
);
