import type { Knex } from 'knex';
import { describeConnection, serverConnection, type ServerConnection } from './connection-url.ts';
import type { SettingsOf } from '../../kernel/index.ts';
import type { mysqlServer, postgresServer, serverPool } from './config.ts';
import type { KnexSettings } from './knex-settings.ts';
import type { PoolOptions } from './recipe.ts';

/**
 * PostgreSQL: a transaction-scoped advisory lock on a connection of its own, held while the migration
 * runs on others; it ends with the transaction, or with the session if the node dies.
 */
async function postgresMigrationLock<T>(db: Knex, name: string, work: () => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [name]);
    return work();
  });
}

/** MySQL/MariaDB: a named lock of the session, released when done or when the session ends. */
async function mysqlMigrationLock<T>(db: Knex, name: string, work: () => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    const [rows] = await trx.raw('select get_lock(?, 60) as got', [name]);
    if (Number((rows as Array<{ got: number }>)[0]?.got) !== 1)
      throw new Error(`could not take the migration lock ${name} within 60 s`);
    try {
      return await work();
    } finally {
      await trx.raw('select release_lock(?)', [name]);
    }
  });
}

/** knex settings for PostgreSQL (pg) or MySQL/MariaDB (mysql2), with bounded connect and acquire times. */
export function serverKnexSettings(kind: 'postgresql' | 'mysql', c: ServerConnection, pool: PoolOptions): KnexSettings {
  const connection =
    kind === 'postgresql'
      ? {
          host: c.host,
          port: c.port,
          database: c.database,
          user: c.user,
          password: c.password,
          connectionTimeoutMillis: pool.acquireTimeoutMs,
        }
      : {
          host: c.host,
          port: c.port,
          database: c.database,
          user: c.user,
          password: c.password,
          connectTimeout: pool.acquireTimeoutMs,
          supportBigNumbers: true,
        };
  return {
    describe: `${kind === 'postgresql' ? 'PostgreSQL' : 'MySQL'} at ${describeConnection(c)}`,
    shared: true,
    bootTimeoutMs: pool.bootTimeoutMs,
    exclusive: kind === 'postgresql' ? postgresMigrationLock : mysqlMigrationLock,
    recipe: { kind, connection: c, pool },
    config: {
      client: kind === 'postgresql' ? 'pg' : 'mysql2',
      connection,
      pool: { min: 0, max: pool.max, idleTimeoutMillis: 30_000, createTimeoutMillis: pool.acquireTimeoutMs },
      acquireConnectionTimeout: pool.acquireTimeoutMs,
    },
  };
}

/** The knex settings of rdb-server-1 (PostgreSQL) and of rdb-server-2 (MySQL), from their plugins' settings. */
export function postgresSettings({ jdbc, database }: SettingsOf<typeof postgresServer>): KnexSettings {
  return serverSettings('postgresql', serverConnection(jdbc.url, 'postgresql', jdbc.username, jdbc.password), database);
}

export function mysqlSettings({ rdb2, database }: SettingsOf<typeof mysqlServer>): KnexSettings {
  return serverSettings('mysql', serverConnection(rdb2.jdbcUrl, 'mysql', rdb2.username, rdb2.password), database);
}

function serverSettings(
  kind: 'postgresql' | 'mysql',
  connection: ServerConnection,
  pool: SettingsOf<typeof serverPool>['database'],
): KnexSettings {
  return serverKnexSettings(kind, connection, {
    max: pool.poolMax,
    acquireTimeoutMs: pool.acquireTimeoutMs,
    bootTimeoutMs: pool.bootTimeoutMs,
  });
}
