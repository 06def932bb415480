import path from 'node:path';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { startTestService, tempDir } from '../helpers/service.ts';

const dir = tempDir();
const env = { SVC_JOURNAL_KIND: 'rdb-embedded' };

t.test('a restart on the same files keeps every key, version and state usable', async (t) => {
  let svc = await startTestService(env, { dir });
  let api = svc.client();
  const aes = await api.key({ algorithm: 'AES' });
  const ec = await api.key({ algorithm: 'EC', curve: 'P-384' });
  const enc = await api.post(`/v1/keys/${aes}/encrypt`, { plaintextBase64: b64('survives'), context: { app: 'x' } });
  await api.post(`/v1/keys/${aes}/rotate`, { policy: 'OpCountBased:100' });
  const sig = await api.post(`/v1/keys/${ec}/sign`, { messageBase64: b64('m') });
  const compromised = await api.key({ algorithm: 'HMAC' });
  await api.post(`/v1/keys/${compromised}/compromise`, { reason: 'test' });
  await svc.stop();

  svc = await startTestService(env, { dir });
  api = svc.client();
  t.match((await api.get(`/v1/keys/${aes}`)).body, {
    state: 'Active',
    currentVersion: 2,
    rotationPolicy: 'OpCountBased:100',
  });
  t.same(
    (await api.post(`/v1/keys/${aes}/decrypt`, { ciphertextBase64: enc.body.ciphertextBase64, context: { app: 'x' } }))
      .body,
    { plaintextBase64: b64('survives'), keyVersion: 1 },
  );
  t.match(
    (await api.post(`/v1/keys/${ec}/verify`, { messageBase64: b64('m'), signatureBase64: sig.body.signatureBase64 }))
      .body,
    { valid: true },
  );
  t.equal((await api.get(`/v1/keys/${compromised}`)).body.state, 'Compromised');
  const rows = await api.auditOf(aes);
  t.ok(rows.length >= 4, 'the audit trail survived too');
  await svc.stop();
});

t.test('destroy erases the material rows for good; the events stay', async (t) => {
  const svc = await startTestService(env, { dir });
  const api = svc.client();
  const id = await api.key({ algorithm: 'AES' });
  await api.post(`/v1/keys/${id}/rotate`, {});
  await api.post(`/v1/keys/${id}/revoke`, {});
  const db = new Database(path.join(dir, 'journal.db'), { readonly: true });
  const count = () =>
    (db.prepare('select count(*) n from svc_key_material where key_id = ?').get(id) as { n: number }).n;
  t.equal(count(), 2);
  await api.call('DELETE', `/v1/keys/${id}`);
  t.equal(count(), 0);
  t.equal((db.prepare('select count(*) n from svc_key_events where key_id = ?').get(id) as { n: number }).n, 5);
  db.close();
  await svc.stop();
});
