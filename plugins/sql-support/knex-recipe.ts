import type { ServerConnection } from '../../config/urls.ts';
import type { KnexSettings } from './knex-settings.ts';
import { serverKnexSettings, type PoolOptions } from './server-connection.ts';
import { sqliteReaderSettings } from './sqlite-connection.ts';

/**
 * How a set of knex settings was made, as plain data: KnexSettings hold functions (a driver class, pool
 * hooks), which cannot be sent to a worker thread; the recipe can, and the worker rebuilds its own
 * settings from it. The password travels with it only within the process.
 */
export type KnexRecipe =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgresql' | 'mysql'; connection: ServerConnection; pool: PoolOptions };

/**
 * Settings for a reader of the same database, as a worker thread opens them: SQLite read-only beside
 * the writer (WAL lets it read while the service writes); a server database through a small pool of
 * its own, so long reads never take a connection the request path waits for.
 */
export function readerSettings(recipe: KnexRecipe): KnexSettings {
  if (recipe.kind === 'sqlite') return sqliteReaderSettings(recipe.file);
  return serverKnexSettings(recipe.kind, recipe.connection, { ...recipe.pool, max: 2 });
}
