import type { Knex } from 'knex';
import type { KnexRecipe } from './recipe.ts';

/** How to reach one SQL database: knex's config plus what must happen before the first connection. */
export interface KnexSettings {
  config: Knex.Config;
  prepare?: () => Promise<void>;
  /**
   * Runs the schema migration while holding a lock that every process sharing the database takes, and
   * that the database (or the OS) releases by itself if the holder dies: nodes starting together take turns.
   */
  exclusive?: <T>(db: Knex, name: string, work: () => Promise<T>) => Promise<T>;
  /** What to call the database in messages: host:port/database or the file, never credentials. */
  describe: string;
  /** Several service nodes may share this database, so cached key state must be re-checked before use. */
  shared: boolean;
  /** Bound on reaching the database at start. */
  bootTimeoutMs: number;
  /** The same settings as plain data, for a worker thread that opens its own connection (recipe.ts, knex-recipe.ts). */
  recipe?: KnexRecipe;
  /**
   * Background work on the database that lives as long as the pool: started once it is migrated, stopped before it
   * closes.
   */
  companion?: () => { stop(): Promise<void> };
  /**
   * Where the database can tell without a query that no key event was committed since some moment (SQLite's
   * data_version, PostgreSQL's notifications): opened once it is migrated, closed before the pool closes. See
   * KeyJournal.changeStamp.
   */
  changeStamp?: () => ChangeStamp | Promise<ChangeStamp>;
}

export interface ChangeStamp {
  /** Undefined while the stamp cannot vouch for anything (PostgreSQL: not listening). */
  read(): number | undefined;
  close(): void;
}
