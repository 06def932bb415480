import path from 'node:path';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import t from 'tap';
import { journalPort, type KeyJournal } from '../../kernel/ports/journal.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

/**
 * Appends Destroyed to a key's journal as a destroy would, leaving its KWK and material in place (a crash between the
 * two).
 */
function destroyedButNotErased(journalFile: string, keyId: string): void {
  const db = new Database(journalFile);
  const seq =
    (db.prepare('select max(seq) as s from svc_key_events where key_id = ?').get(keyId) as { s: number }).s + 1;
  const at = new Date().toISOString();
  db.prepare('insert into svc_key_events (key_id, seq, type, payload, occurred_at) values (?, ?, ?, ?, ?)').run(
    keyId,
    seq,
    'Destroyed',
    JSON.stringify({ type: 'Destroyed', at, by: 'ops' }),
    at,
  );
  db.close();
}

const stored = (journalFile: string, keyId: string) => {
  const db = new Database(journalFile, { readonly: true });
  const n = (
    db
      .prepare(
        'select (select count(*) from svc_key_material where key_id = ?) + ' +
          '(select count(*) from svc_key_kwk where key_id = ?) as n',
      )
      .get(keyId, keyId) as { n: number }
  ).n;
  db.close();
  return n;
};

t.test('a destroy that stopped part-way is finished by DELETE again (200), and by start-up', async (t) => {
  const dir = tempDir();
  const journal = path.join(dir, 'journal.db');
  const env = { SVC_JOURNAL_KIND: 'rdb-embedded' };
  const first = await startTestService(env, { dir });
  const api = first.client('ops');
  const viaDelete = await api.key({ algorithm: 'AES' }, false);
  const viaStartup = await api.key({ algorithm: 'AES' }, false);
  await first.stop();
  destroyedButNotErased(journal, viaDelete);
  destroyedButNotErased(journal, viaStartup);
  t.ok(stored(journal, viaStartup) > 0, 'material left behind');

  const second = await startTestService(env, { dir });
  t.teardown(() => second.stop());
  t.equal(stored(journal, viaStartup), 0, 'start-up erased what a Destroyed key left behind');
  t.equal(stored(journal, viaDelete), 0, 'start-up erased this one too');
  await until(
    async () => (await second.kernel.container.resolve<KeyJournal>(journalPort.id).pendingErasures()).length === 0,
    'the background erase of their files',
  );

  // And through the API, for a node that did not restart: make the leftover again, on the running node.
  const again = second.client('ops');
  const third = await again.key({ algorithm: 'AES' }, false);
  t.equal((await again.post(`/v1/keys/${third}/compromise`, { reason: 'x' })).status, 200);
  t.equal((await again.call('DELETE', `/v1/keys/${third}`)).status, 200);
  t.equal((await again.call('DELETE', `/v1/keys/${third}`)).status, 409, 'a finished destroy is not repeated: 409');
  // Material still stored for a Destroyed key (its erase failed): DELETE finishes it and answers 200.
  await second.kernel.container
    .resolve<KeyJournal>(journalPort.id)
    .putMaterial(third, 'left-behind', Buffer.alloc(61, 3));
  const finished = await again.call('DELETE', `/v1/keys/${third}`);
  t.equal(finished.status, 200);
  t.match(finished.body, { id: third, state: 'Destroyed', erasure: 'complete' });
  t.equal(stored(journal, third), 0, 'and the erase is complete');
  t.match((await again.get(`/v1/keys/${third}`)).body, { state: 'Destroyed' });
});
