import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type Logger, narrowToOwner, warnIfFolderOpen } from '../../kernel/index.ts';
import { withFileLock } from './file-lock.ts';
import { Database, knexSqliteClient } from './sqlite-driver.ts';
import type { ChangeStamp, KnexSettings } from './knex-settings.ts';
import { WalCheckpointer, WRITER_AUTOCHECKPOINT_PAGES } from './wal-checkpointer.ts';

/**
 * What every connection that writes an SQLite file sets (the pool's below, and a row writer thread's).
 * secure_delete: freed cells are overwritten with zeros, so a deleted row leaves no copy in the file.
 * The WAL is checkpointed by a thread of its own (the companion below), not inside a commit here.
 * journal_size_limit: once checkpointed, the WAL is cut back to `walSizeLimitBytes` at the next commit. At
 * 0 (the default: the journal) it starts over from nothing, so a full disk fails the next commit that needs
 * room (as with a WAL that never started over) rather than after the old WAL's size, and old frames (a
 * destroyed key's wrapped material) do not stay in the file. Above 0, a WAL that has grown is written over
 * in place: every commit then appends to a file of the same size, where one that grows the file makes its
 * fsync also commit the file system's metadata, a pause of 100 ms and more every few seconds under load.
 */
export function writerPragmas(walSizeLimitBytes = 0): string[] {
  return [
    'journal_mode = WAL',
    'synchronous = FULL',
    'secure_delete = ON',
    'busy_timeout = 5000',
    `wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`,
    `journal_size_limit = ${Math.max(0, Math.floor(walSizeLimitBytes))}`,
  ];
}

/**
 * knex settings for an SQLite file through better-sqlite3: one connection (SQLite has one writer),
 * WAL for concurrent readers, synchronous FULL so an acknowledged write survives a crash. The folder
 * is made at start, not when the settings are built. `shared`: other processes of this host write the
 * same file (the workers of one node), so what this process caches is checked against the file before
 * each use, as on a database server; busy_timeout makes a writer wait its turn for the write lock.
 */
export function sqliteKnexSettings(
  file: string,
  logger: Pick<Logger, 'warn'> = { warn: () => {} },
  shared = false,
  /** What a checkpointed WAL is cut back to (writerPragmas); 0 unless the file holds nothing to erase. */
  walSizeLimitBytes = 0,
): KnexSettings {
  return {
    describe: file,
    shared,
    bootTimeoutMs: 15_000,
    recipe: { kind: 'sqlite', file, walSizeLimitBytes },
    // The data directory is made 0700; the process umask (app/main.ts) makes every file in it 0600, and
    // a file an earlier version or a restore left open to others is narrowed at start, with a warning.
    exclusive: (_db, _name, work) => withFileLock(file, 15_000, work),
    prepare: async () => {
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      warnIfFolderOpen(path.dirname(file), logger);
      for (const f of [file, `${file}-wal`, `${file}-shm`]) narrowToOwner(f, 'SQLite file', logger);
    },
    config: {
      client: knexSqliteClient(),
      connection: { filename: file },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate: withPragmas(writerPragmas(walSizeLimitBytes)),
      },
    },
    companion: () => new WalCheckpointer(file, (message, fields) => logger.warn(message, fields)),
    changeStamp: () => dataVersion(file),
  };
}

/**
 * A read-only connection to the same SQLite file, for a worker thread that reads beside the writer. WAL
 * lets it read while the service writes; each statement is its own short read transaction, so a long
 * read made in pages never keeps the WAL from being checkpointed for longer than one page.
 */
export function sqliteReaderSettings(file: string): KnexSettings {
  return {
    describe: file,
    shared: false,
    bootTimeoutMs: 15_000,
    recipe: { kind: 'sqlite', file },
    config: {
      client: knexSqliteClient(),
      connection: { filename: file, options: { readonly: true } },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate: withPragmas(['busy_timeout = 5000']),
      },
    },
  };
}

/** A pool hook that sets `pragmas` on each new connection, in order, before the pool hands it out. */
function withPragmas(pragmas: string[]) {
  return (conn: { pragma(s: string): unknown }, done: (err: Error | null, conn: unknown) => void): void => {
    try {
      for (const p of pragmas) conn.pragma(p);
      done(null, conn);
    } catch (err) {
      done(err as Error, conn);
    }
  };
}

/**
 * SQLite's data_version, read on a read-only connection of its own: it changes whenever any other
 * connection (another worker's, or this process's writer) commits to the file, and reading it is a
 * few microseconds with no lock, so a worker trusts its cached keys until some commit happened.
 */
function dataVersion(file: string): ChangeStamp {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const statement = db.prepare('PRAGMA data_version').pluck();
  return { read: () => statement.get() as number, close: () => db.close() };
}
