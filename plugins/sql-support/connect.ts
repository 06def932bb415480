import knexFactory, { type Knex } from 'knex';
import type { KnexSettings } from './knex-settings.ts';
import type { Migration } from './migration-source.ts';
import { migrationSource } from './migration-source.ts';

/**
 * Opens a knex pool and brings its schema up to date, within the boot time limit. A database that
 * cannot be reached fails the boot with a message naming it (host, port, database; never a password).
 */
export async function connectAndMigrate(settings: KnexSettings, migrations: Migration[], table: string): Promise<Knex> {
  await settings.prepare?.();
  const db = knexFactory(settings.config);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      db.migrate.latest({ migrationSource: migrationSource(migrations), tableName: table }),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${settings.bootTimeoutMs} ms`)), settings.bootTimeoutMs);
      }),
    ]);
    return db;
  } catch (err) {
    await db.destroy().catch(() => {});
    throw new Error(`cannot use ${settings.describe}: ${(err as Error).message.split('\n')[0]}`);
  } finally {
    clearTimeout(timer);
  }
}
