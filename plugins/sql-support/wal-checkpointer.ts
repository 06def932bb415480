import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SQLITE_DRIVER_PACKAGE } from './sqlite-driver.ts';

/**
 * How often the background thread checkpoints an SQLite file's WAL into the file (ms). Between two
 * checkpoints the WAL holds what was committed since; at the fuzz load's rate that is a few MB.
 */
export const BACKGROUND_CHECKPOINT_MS = 500;

/**
 * The writer connection's own automatic checkpoint, in WAL pages (4 KiB each): only a safety net for a
 * background thread that has fallen this far behind or is gone. SQLite's default (1,000 pages) made
 * the commit that crossed it copy 4 MB into the file and fsync it, inside a request, on the thread that
 * serves every request.
 */
export const WRITER_AUTOCHECKPOINT_PAGES = 16_384;

/**
 * The checkpointing thread's code, plain JavaScript so that it needs no TypeScript loader: its own
 * read-write connection to the file, and every `intervalMs` a PASSIVE checkpoint, which copies what it
 * can without waiting for readers or blocking the writer. When a checkpoint has copied the whole WAL,
 * the writer's next commit starts the WAL again from its beginning, so the file stays small.
 */
const CHECKPOINT_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 1000');
const checkpoint = () => {
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ checkpointed: row.checkpointed, log: row.log });
  } catch (err) {
    parentPort.postMessage({ error: err.message });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export interface CheckpointOutcome {
  /** WAL frames copied into the file so far, and frames in the WAL, as the last checkpoint saw them. */
  checkpointed: number;
  log: number;
}

/**
 * Checkpoints an SQLite file's WAL from a worker thread of its own, so that no commit made on the request
 * path's thread also copies the WAL into the file and waits for that file's fsync (see
 * WRITER_AUTOCHECKPOINT_PAGES). The thread never keeps the process alive; stop() ends it after a last
 * checkpoint. A failed checkpoint is reported once per run of failures and tried again at the next tick
 * (a truncating checkpoint of the erasure scrub may hold the file for a moment).
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private failing = false;
  private readonly exited: Promise<void>;

  constructor(
    file: string,
    warn: (message: string, fields: Record<string, unknown>) => void,
    onCheckpoint?: (outcome: CheckpointOutcome) => void,
    intervalMs = BACKGROUND_CHECKPOINT_MS,
  ) {
    const driver = createRequire(import.meta.url).resolve(SQLITE_DRIVER_PACKAGE);
    this.worker = new Worker(CHECKPOINT_THREAD, { eval: true, workerData: { file, driver, intervalMs } });
    this.worker.unref();
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', (m: CheckpointOutcome | { error: string }) => {
      if ('error' in m) {
        if (!this.failing) warn('background WAL checkpoint failed; retried', { file, error: m.error });
        this.failing = true;
        return;
      }
      this.failing = false;
      onCheckpoint?.(m);
    });
    this.worker.on('error', (err) =>
      warn('background WAL checkpoint thread ended; the writer checkpoints by itself', { file, error: err.message }),
    );
  }

  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    const timer = setTimeout(() => void this.worker.terminate(), 5_000);
    await this.exited;
    clearTimeout(timer);
  }
}
