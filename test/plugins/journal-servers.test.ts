import t from 'tap';
import { serverConnection } from '../../plugins/sql-support/connection-url.ts';
import { KnexJournal } from '../../plugins/journal/knex/knex-journal.ts';
import { PostgresChangeStamp } from '../../plugins/sql-support/postgres-change-stamp.ts';
import { serverKnexSettings } from '../../plugins/sql-support/server-connection.ts';
import { journalContract } from '../../contracts/journal.ts';
import { freshDatabase, type ServerKind } from '../helpers/databases.ts';

const variants: Array<{ kind: ServerKind; notified: boolean }> = [
  { kind: 'postgresql', notified: false },
  { kind: 'postgresql', notified: true },
  { kind: 'mysql', notified: false },
];

for (const { kind, notified } of variants) {
  t.test(`${kind} journal${notified ? ' with notified key changes' : ''} passes the journal contract`, async (t) => {
    const db = await freshDatabase(t, kind);
    if (!db) return;
    const open = async () => {
      const settings = serverKnexSettings(kind, serverConnection(db.url, kind, db.user, db.password), {
        max: 5,
        acquireTimeoutMs: 3000,
        bootTimeoutMs: 10000,
      });
      const j = new KnexJournal(
        notified ? { ...settings, changeStamp: () => PostgresChangeStamp.listening(settings) } : settings,
      );
      await j.start();
      return j;
    };
    journalContract(t, open, open);
  });
}
