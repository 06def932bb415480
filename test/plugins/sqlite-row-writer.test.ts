import { statSync } from 'node:fs';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import t from 'tap';
import { isSvcError } from '../../kernel/errors.ts';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import { RESTART_PAUSE_MS, SqliteRowWriter } from '../../plugins/sql-support/sqlite-row-writer.ts';
import { isUniqueViolation } from '../../plugins/sql-support/unique-violation.ts';
import { tempDir } from '../helpers/service.ts';
import { terminateThread } from '../helpers/terminate-thread.ts';
import { until } from '../helpers/until.ts';

const quiet = () => {};

/** A WAL-mode file with a table `rows(id, tag unique, body)`, and a connection to read it with. */
function fileWithTable(): { file: string; db: InstanceType<typeof Database> } {
  const file = path.join(tempDir(), 'rows.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, tag TEXT UNIQUE, body TEXT)');
  return { file, db };
}

const count = (db: InstanceType<typeof Database>) =>
  (db.prepare('SELECT count(*) AS n FROM rows').get() as { n: number }).n;

t.test('rows are committed by the writer thread before insert resolves, all of a batch or none', async (t) => {
  const { file, db } = fileWithTable();
  const writer = new SqliteRowWriter(file, quiet);
  t.teardown(async () => {
    await writer.stop();
    db.close();
  });

  await writer.insert('rows', [{ tag: 'a', body: 'one' }, { tag: 'b' }]);
  t.same(
    db.prepare('SELECT tag, body FROM rows ORDER BY id').all(),
    [
      { tag: 'a', body: 'one' },
      { tag: 'b', body: null },
    ],
    'both rows readable from another connection; a missing column is NULL',
  );

  const refused = await writer.insert('rows', [{ tag: 'c' }, { tag: 'a' }]).catch((err: unknown) => err);
  t.ok(isUniqueViolation(refused), "a unique violation keeps the driver's code");
  t.equal(count(db), 2, 'the batch with a duplicate stored none of its rows, not even the first');

  await writer.insert('rows', [{ tag: 'c' }]);
  t.equal(count(db), 3, 'the writer goes on after a refused batch');
});

t.test('a writer thread that ends fails what it held with 503, and the next insert starts another', async (t) => {
  const { file, db } = fileWithTable();
  const warnings: string[] = [];
  const writer = new SqliteRowWriter(file, (message) => warnings.push(message));
  t.teardown(async () => {
    await writer.stop();
    db.close();
  });
  await writer.insert('rows', [{ tag: 'warm' }]);
  const thread = (writer as unknown as { worker: Worker }).worker;
  const held = writer.insert('rows', [{ tag: 'held' }]);
  await terminateThread(thread);
  const err = await held.then(
    () => undefined,
    (e: unknown) => e,
  );
  // The insert may have been committed before the thread ended; either way its caller is told the truth.
  if (err === undefined) t.equal(count(db), 2, 'answered as stored: the row is there');
  else t.ok(isSvcError(err) && err.code === 'ServiceUnavailable', 'answered 503: retry');
  t.ok(
    warnings.includes('SQLite writer thread ended') || err === undefined,
    'the end of a thread that held a write is logged',
  );
  const soon = await writer.insert('rows', [{ tag: 'soon' }]).catch((e: unknown) => e);
  t.ok(isSvcError(soon) && soon.code === 'ServiceUnavailable', 'right after a failed thread: 503, no new thread yet');
  await until(
    () =>
      writer.insert('rows', [{ tag: 'after' }]).then(
        () => true,
        () => false,
      ),
    'a new thread to store an insert',
    RESTART_PAUSE_MS * 10,
  );
  t.ok(db.prepare("SELECT 1 FROM rows WHERE tag = 'after'").get(), 'a new thread stored the next insert');
});

t.test('a file the writer cannot open: 503 at once, and no thread started per batch meanwhile', async (t) => {
  const file = path.join(tempDir(), 'missing.db');
  const warnings: string[] = [];
  const writer = new SqliteRowWriter(file, (message) => warnings.push(message));
  t.teardown(() => writer.stop());
  const outcomes = [];
  for (let i = 0; i < 20; i++) outcomes.push(await writer.insert('rows', [{ tag: `${i}` }]).catch((e: unknown) => e));
  t.ok(
    outcomes.every((e) => isSvcError(e) && e.code === 'ServiceUnavailable'),
    'every insert is refused with 503',
  );
  const started = warnings.filter((w) => w === 'SQLite writer thread ended').length;
  t.equal(started, 1, 'one thread tried to open the file; the other 19 inserts started none');
});

t.test('a stopped writer refuses with 503', async (t) => {
  const { file, db } = fileWithTable();
  const writer = new SqliteRowWriter(file, quiet);
  await writer.stop();
  db.close();
  const err = await writer.insert('rows', [{ tag: 'late' }]).catch((e: unknown) => e);
  t.ok(isSvcError(err) && err.code === 'ServiceUnavailable');
});

t.test(
  "a WAL size limit keeps the checkpointed WAL's size; without one the WAL starts over from nothing",
  async (t) => {
    const walAfterCheckpoint = async (limit: number) => {
      const { file, db } = fileWithTable();
      const writer = new SqliteRowWriter(file, quiet, limit);
      try {
        for (let i = 0; i < 20; i++)
          await writer.insert(
            'rows',
            Array.from({ length: 10 }, (_, j) => ({ tag: `${i}-${j}`, body: 'x'.repeat(1000) })),
          );
        const grown = statSync(`${file}-wal`).size;
        const [checkpoint] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>;
        t.equal(checkpoint!.checkpointed, checkpoint!.log, 'the whole WAL was copied into the file');
        // The next commit starts the WAL over: it cuts the file back to the limit, then appends its frames.
        await writer.insert('rows', [{ tag: 'next' }]);
        return { grown, after: statSync(`${file}-wal`).size };
      } finally {
        await writer.stop();
        db.close();
      }
    };
    const cut = await walAfterCheckpoint(0);
    t.ok(cut.after < cut.grown / 4, `limit 0: ${cut.grown} bytes cut back to ${cut.after}`);
    const kept = await walAfterCheckpoint(64 * 1024 * 1024);
    t.equal(kept.after, kept.grown, `a 64 MiB limit: the ${kept.grown}-byte WAL is written over in place`);
  },
);
