import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';

/**
 * knex settings for an SQLite file through better-sqlite3: one connection (SQLite has one writer),
 * WAL for concurrent readers, synchronous FULL so an acknowledged write survives a crash.
 */
export function sqliteKnexConfig(file: string): Knex.Config {
  return {
    client: 'better-sqlite3',
    // A function, so the folder is made when the first connection opens (start), not when config is built.
    connection: () => {
      mkdirSync(path.dirname(file), { recursive: true });
      return { filename: file };
    },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate: (conn: { pragma(s: string): unknown }, done: (err: Error | null, conn: unknown) => void) => {
        try {
          conn.pragma('journal_mode = WAL');
          conn.pragma('synchronous = FULL');
          conn.pragma('busy_timeout = 5000');
          done(null, conn);
        } catch (err) {
          done(err as Error, conn);
        }
      },
    },
  };
}
