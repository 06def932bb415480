import t from 'tap';
import { serverConnection } from '../../plugins/sql-support/connection-url.ts';
import { KnexJournal } from '../../plugins/journal/knex/knex-journal.ts';
import { serverKnexSettings } from '../../plugins/sql-support/server-connection.ts';
import { journalContract } from '../../contracts/journal.ts';
import { freshDatabase, type ServerKind } from '../helpers/databases.ts';

for (const kind of ['postgresql', 'mysql'] as ServerKind[]) {
  t.test(`${kind} journal passes the journal contract`, async (t) => {
    const db = await freshDatabase(t, kind);
    if (!db) return;
    const open = async () => {
      const j = new KnexJournal(
        serverKnexSettings(kind, serverConnection(db.url, kind, db.user, db.password), {
          max: 5,
          acquireTimeoutMs: 3000,
          bootTimeoutMs: 10000,
        }),
      );
      await j.start();
      return j;
    };
    journalContract(t, open, open);
  });
}
