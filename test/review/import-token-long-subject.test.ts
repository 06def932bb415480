import t, { type Test } from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/**
 * Review of issue 23: svc_import_tokens.issued_to is varchar(512) (migration 012), but subjects are
 * longer (the service serves 8 KB subjects; the key index stores owners as text for that reason). On
 * PostgreSQL (and MySQL/MariaDB in strict mode) the insert fails and import-parameters answers 500.
 */
async function longSubject(t: Test, env: Record<string, string>) {
  const svc = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET, ...env });
  t.teardown(() => svc.stop());
  const subject = `svc-${'x'.repeat(600)}`;
  const api = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: subject })}` });
  t.equal((await api.post('/v1/keys', { spec: { name: 'long-subject', algorithm: 'AES' } })).status, 201, 'the caller may create keys');
  const res = await api.post('/v1/keys/import-parameters', { algorithm: 'AES', sizeBits: 256 });
  t.equal(res.status, 200, `import-parameters: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
}

t.test('SQLite', (t) => longSubject(t, { SVC_JOURNAL_KIND: 'rdb-embedded' }));
t.test('PostgreSQL', async (t) => {
  const db = await freshDatabase(t, 'postgresql');
  if (db) await longSubject(t, db.env);
});
