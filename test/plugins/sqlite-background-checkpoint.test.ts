import { statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { connectAndMigrate } from '../../plugins/sql-support/connect.ts';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { WRITER_AUTOCHECKPOINT_PAGES } from '../../plugins/sql-support/wal-checkpointer.ts';
import { tempDir } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

const PAGE = 4096;
const rows = [
  {
    name: '001 rows',
    up: (k: import('knex').Knex) =>
      k.schema.createTable('rows', (tb) => {
        tb.increments('id');
        tb.binary('body');
      }),
  },
];

t.test(
  'commits on the request thread never checkpoint the WAL: a thread of its own copies it into the file',
  async (t) => {
    const file = path.join(tempDir(), 'journal.db');
    const db = await connectAndMigrate(sqliteKnexSettings(file), rows, 'svc_test_migrations');
    t.teardown(() => db.destroy());
    const [setting] = await db.raw('pragma wal_autocheckpoint');
    t.equal(
      setting.wal_autocheckpoint,
      WRITER_AUTOCHECKPOINT_PAGES,
      "the writer would checkpoint only far beyond SQLite's 1,000 pages, as a safety net",
    );

    // 600 commits of a page each: under SQLite's default, none of them would have copied anything into the
    // file yet (that waits for 1,000 pages, then happens inside the commit that crosses them).
    const before = statSync(file).size;
    for (let i = 0; i < 600; i++) await db('rows').insert({ body: Buffer.alloc(PAGE - 200, i % 251) });
    // No further write: only the background checkpoint can bring the committed pages into the file.
    await until(
      () => statSync(file).size >= before + 600 * (PAGE - 200),
      'the background checkpoint to copy the WAL into journal.db',
    );
    const plain = new Database(file, { readonly: true });
    t.teardown(() => plain.close());
    t.equal(
      (plain.prepare('select count(*) as n from rows').get() as { n: number }).n,
      600,
      'every committed row is there',
    );
  },
);

t.test('the checkpoint thread ends with the pool, after a last checkpoint', async (t) => {
  const file = path.join(tempDir(), 'audit.db');
  const db = await connectAndMigrate(sqliteKnexSettings(file), rows, 'svc_test_migrations');
  for (let i = 0; i < 50; i++) await db('rows').insert({ body: Buffer.alloc(PAGE, 7) });
  await db.destroy();
  t.ok(statSync(file).size >= 50 * PAGE, 'what was committed before the stop is in the file');
  const plain = new Database(file);
  const [row] = plain.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>;
  plain.close();
  t.equal(row!.log, row!.checkpointed, 'nothing is left uncopied in the WAL');
});
