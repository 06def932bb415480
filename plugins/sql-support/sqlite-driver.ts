import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';

const require = createRequire(import.meta.url);

/**
 * better-sqlite3 for the running Node. Up to 12.x it is built on node::ObjectWrap, whose destructor
 * since Node 24.19 may abort the process when a statement is collected by an idle GC ("Assertion
 * failed: (env) != nullptr" in RemoveEnvironmentCleanupHook); 13.x (Node-API, installed as
 * better-sqlite3-napi) fixes that but needs Node 22 or newer and crashes on Node 20. Both have the same
 * API, so Node 20 gets 12.x and newer Nodes get 13.x.
 */
export const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
export const SQLITE_DRIVER_PACKAGE = NODE_MAJOR >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

export const Database: typeof BetterSqlite3 = require(SQLITE_DRIVER_PACKAGE);
export type Database = BetterSqlite3.Database;

/** knex's better-sqlite3 dialect, loading the driver chosen above instead of the package by name. */
export function knexSqliteClient(): typeof Knex.Client {
  const Dialect = require('knex/lib/dialects/better-sqlite3/index.js') as new (
    config: object,
  ) => { _driver(): unknown };
  class SqliteClient extends Dialect {
    override _driver(): unknown {
      return Database;
    }
  }
  return SqliteClient as unknown as typeof Knex.Client;
}
