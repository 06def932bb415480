import path from 'node:path';
import t from 'tap';
import { KnexJournal } from '../../plugins/journal/knex/knex-journal.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { journalContract } from '../../contracts/journal.ts';
import { tempDir } from '../helpers/service.ts';

const file = path.join(tempDir(), 'nested', 'journal.db');
const open = async () => {
  const j = new KnexJournal(sqliteKnexSettings(file));
  await j.start();
  return j;
};
journalContract(t, open, open);

t.test(
  'workers sharing the file: the change stamp moves with every commit of another connection, and only then',
  async (t) => {
    const shared = path.join(tempDir(), 'journal.db');
    const a = new KnexJournal(sqliteKnexSettings(shared, undefined, true));
    await a.start();
    const b = new KnexJournal(sqliteKnexSettings(shared, undefined, true));
    await b.start();
    t.teardown(async () => {
      await a.stop();
      await b.stop();
    });
    const id = '00000000-0000-4000-8000-00000000abcd';
    const first = a.changeStamp();
    t.type(first, 'number', 'a shared SQLite journal has a change stamp');
    await a.lastSeq(id);
    t.equal(a.changeStamp(), first, 'a read commits nothing: the stamp stays');
    await b.append(id, 0, [
      {
        type: 'KeyCreated',
        at: '2026-01-01T00:00:00.000Z',
        spec: { name: 'stamp', algorithm: 'AES', sizeBits: 256, objectType: 'SymmetricKey', exportable: false },
        by: 'alice',
        materialId: 'm1',
      },
    ]);
    const second = a.changeStamp();
    t.not(second, first, "another worker's commit moves it");
    await a.append(id, 1, [{ type: 'KeyActivated', at: '2026-01-01T00:00:00.000Z', by: 'alice' }]);
    t.not(a.changeStamp(), second, "this process's own commit moves it too (it is written on the pool's connection)");
    t.equal(
      new KnexJournal(sqliteKnexSettings(path.join(tempDir(), 'alone.db'))).changeStamp(),
      undefined,
      'a journal no other process writes has none: nothing to check',
    );
  },
);
