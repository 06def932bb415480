import type { Knex } from 'knex';
import type { KnexSettings } from './knex-settings.ts';
import type { Migration } from './migration-source.ts';
import { migrationSource } from './migration-source.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * True when a migration attempt failed because another node is migrating the same database at this
 * moment: it holds knex's migration lock, or created the migration tables (or their lock row) first.
 * The caller waits and tries again; by then the other node's migration has usually run.
 */
export function isConcurrentMigration(err: unknown): boolean {
  const e = err as { code?: string; errno?: number; message?: string };
  if (
    /already locked|already exists|duplicate key|Duplicate entry|UNIQUE constraint failed|database is locked|SQLITE_BUSY/i.test(
      e?.message ?? '',
    )
  )
    return true;
  return (
    [
      '42P07',
      '23505',
      'ER_TABLE_EXISTS_ERROR',
      'ER_DUP_ENTRY',
      'SQLITE_BUSY',
      'SQLITE_CONSTRAINT_UNIQUE',
      'SQLITE_CONSTRAINT_PRIMARYKEY',
    ].includes(e?.code ?? '') || e?.errno === 1050
  );
}

/**
 * Opens a knex pool and brings its schema up to date, within the boot time limit. Several nodes may
 * start at once (a rolling deployment): a node that finds another one migrating waits for it and then
 * boots. A database that cannot be reached, or a migration lock that no node releases within the limit,
 * fails the boot with a message naming the database (host, port, database; never a password).
 */
export async function connectAndMigrate(settings: KnexSettings, migrations: Migration[], table: string): Promise<Knex> {
  await settings.prepare?.();
  // Loaded here, not with the module: a deployment without a SQL store never pays for knex (and lodash).
  const { default: knexFactory } = await import('knex');
  const db = knexFactory(settings.config);
  const deadline = Date.now() + settings.bootTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${settings.bootTimeoutMs} ms`)),
      settings.bootTimeoutMs,
    );
  });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        const migrate = () => db.migrate.latest({ migrationSource: migrationSource(migrations), tableName: table });
        await Promise.race([settings.exclusive ? settings.exclusive(db, table, migrate) : migrate(), timeout]);
        return withCompanion(db, settings);
      } catch (err) {
        if (!isConcurrentMigration(err)) throw err;
        if (Date.now() + 250 > deadline) {
          throw new Error(
            `another node held the migration lock for ${settings.bootTimeoutMs} ms; if no node is migrating, release it: UPDATE ${table}_lock SET is_locked = 0`,
          );
        }
        await pause(100 + Math.random() * Math.min(400, 50 * (attempt + 1)));
      }
    }
  } catch (err) {
    await db.destroy().catch(() => {});
    throw new Error(`cannot use ${settings.describe}: ${(err as Error).message.split('\n')[0]}`);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts the settings' companion (sqlite-connection.ts: the background checkpoint) and stops it when the pool is
 * destroyed.
 */
function withCompanion(db: Knex, settings: KnexSettings): Knex {
  const companion = settings.companion?.();
  if (!companion) return db;
  // knex's own destroy is read-only; it ends by destroying its client, whose destroy this wraps.
  const client = db.client as { destroy(callback?: unknown): Promise<void> };
  const destroy = client.destroy.bind(client);
  client.destroy = async (callback?: unknown) => {
    await companion.stop();
    return destroy(callback);
  };
  return db;
}
