import t, { type Test } from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { importBody, importParameters, secret } from '../helpers/byok.ts';
import { freshDatabase, type ServerKind } from '../helpers/databases.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const AES = { algorithm: 'AES', sizeBits: 256 };

/**
 * Subjects run to 8 KB (the key index keeps owners as text for that reason): a caller with a long one
 * gets import parameters and spends them on every journal backend, the token stored under its subject
 * in full.
 */
async function longSubject(t: Test, env: Record<string, string>) {
  const svc = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET, ...env });
  t.teardown(() => svc.stop());
  const subject = `svc-${'x'.repeat(4000)}`;
  const api = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: subject })}` });
  const params = await importParameters(api, AES);
  const imported = await api.post('/v1/keys/import', importBody(AES, params, secret(32)));
  t.equal(imported.status, 201, 'the token is spent by the caller it was issued to');
  t.equal(imported.body.owner, subject, "and the key is the caller's");
}

t.test('SQLite: a caller with a 4,000-character subject imports a key', (t) =>
  longSubject(t, { SVC_JOURNAL_KIND: 'rdb-embedded' }),
);
for (const kind of ['postgresql', 'mysql'] as ServerKind[]) {
  t.test(`${kind}: a caller with a 4,000-character subject imports a key`, async (t) => {
    const db = await freshDatabase(t, kind);
    if (db) await longSubject(t, db.env);
  });
}
