import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { closeWorker, PendingReplies, SvcError } from '../../kernel/index.ts';
import { writerPragmas } from './sqlite-connection.ts';
import { SQLITE_DRIVER_PACKAGE } from './sqlite-driver.ts';

/**
 * The row writer thread's code, plain JavaScript so that it needs no TypeScript loader: its own connection
 * to the file with the writer's pragmas, and one transaction per message, all of whose rows are stored or none.
 * Table and column names come from the service's code, never from a caller.
 */
const WRITER_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
for (const p of workerData.pragmas) db.pragma(p);
const statements = new Map();
const statementFor = (table, columns) => {
  const key = table + '(' + columns.join(',') + ')';
  let statement = statements.get(key);
  if (!statement) {
    const names = columns.map((c) => '"' + c + '"').join(', ');
    statement = db.prepare('INSERT INTO "' + table + '" (' + names + ') VALUES (' + columns.map(() => '?').join(', ') + ')');
    statements.set(key, statement);
  }
  return statement;
};
const insertAll = db.transaction((table, columns, rows) => {
  const statement = statementFor(table, columns);
  for (const row of rows) statement.run(columns.map((c) => row[c] ?? null));
});
parentPort.on('message', (m) => {
  if (m.kind === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    insertAll(m.table, m.columns, m.rows);
    parentPort.postMessage({ id: m.id });
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: { message: err.message, code: err.code } });
  }
});
`;

/**
 * The least time between the starts of two commits of one writer's batches, where a commit is an fsync:
 * records arriving within it share the next commit (GroupCommit's interval). Measured with
 * `npm run bench:open-loop`: see docs/benchmarks-open-loop.md.
 */
export const SQLITE_COMMIT_INTERVAL_MS = 5;

/**
 * A batch this large is written without waiting out the interval (GroupCommit's fullBatch). A commit costs the
 * writer thread some 500 µs of CPU whatever it holds and each row some 6 µs more (measured at 25 and 50 rows a
 * batch): at 24 rows the fixed part is about a fifth of what the rows cost the service in all, and waiting
 * for more would save little. Without it, 50 clients that each wait for an answer before asking again got at
 * most 50 answers per 5.8 ms (about 8,500 a second, with most of a core idle); two workers splitting them
 * took 25 each and went idle between their smaller batches, which cost each request 1.2-1.4x the CPU.
 */
export const SQLITE_FULL_BATCH = 24;

type Reply = { id: number; error?: { message: string; code?: string } };

/**
 * Inserts rows into an SQLite file from a worker thread of its own. better-sqlite3 is synchronous: a commit
 * made on the request thread holds every request for as long as its fsync takes (synchronous FULL), which
 * under traffic that arrives on its own schedule is most of the queueing. Here the request thread hands the
 * rows over and goes on serving while the commit and its fsync happen on the writer thread; a caller still
 * waits for its own rows to be durable. A failed insert rejects with the driver's message and code (a
 * unique violation reads as one); a thread that ends fails what it held with 503 and is started again by
 * the next insert, but not within RESTART_PAUSE_MS of a thread that failed: a file that cannot be opened (removed,
 * made unreadable) would otherwise cost a thread start for every batch while every caller is answered 503 anyway.
 */
export const RESTART_PAUSE_MS = 1_000;

export class SqliteRowWriter {
  private worker: Worker | undefined;
  private readonly replies = new PendingReplies<void>();
  private stopped = false;
  /** Until when (Date.now()) no new thread starts, after one that failed. */
  private pausedUntil = 0;

  constructor(
    private readonly file: string,
    private readonly warn: (message: string, fields: Record<string, unknown>) => void,
    /** The file's journal_size_limit (writerPragmas): the same as its other writers'. */
    private readonly walSizeLimitBytes = 0,
  ) {}

  /** One transaction: every row of `rows` is stored, or none is. */
  insert(table: string, rows: Array<Record<string, unknown>>): Promise<void> {
    if (this.stopped)
      return Promise.reject(
        new SvcError('ServiceUnavailable', 'the writer is stopping; retry on another node', { retryAfterSeconds: 5 }),
      );
    if (!this.worker && Date.now() < this.pausedUntil)
      return Promise.reject(
        new SvcError('ServiceUnavailable', `the writer of ${this.file} failed a moment ago; retry`, {
          retryAfterSeconds: 1,
        }),
      );
    const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
    return this.replies.send(this.running(), { table, columns, rows });
  }

  /** Ends the thread after what it holds; one that does not end within 5 s is terminated. */
  async stop(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    await closeWorker(worker, { kind: 'close' });
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const driver = createRequire(import.meta.url).resolve(SQLITE_DRIVER_PACKAGE);
    const worker = new Worker(WRITER_THREAD, {
      eval: true,
      workerData: { file: this.file, driver, pragmas: writerPragmas(this.walSizeLimitBytes) },
    });
    worker.on('message', (reply: Reply) => this.settle(reply));
    worker.on('error', (err) => this.warn('SQLite writer thread failed', { file: this.file, error: err.message }));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      const lost = this.replies.failAll(
        () =>
          new SvcError('ServiceUnavailable', `the writer of ${this.file} ended before the commit; retry`, {
            retryAfterSeconds: 1,
          }),
      );
      if (code !== 0 && !this.stopped) this.pausedUntil = Date.now() + RESTART_PAUSE_MS;
      if (lost > 0 || (code !== 0 && !this.stopped))
        this.warn('SQLite writer thread ended', { file: this.file, code, writes: lost });
    });
    this.worker = worker;
    return worker;
  }

  private settle({ id, error }: Reply): void {
    this.replies.settle(
      this.worker,
      id,
      error ? { error: Object.assign(new Error(error.message), { code: error.code }) } : { value: undefined },
    );
  }
}
