import type { KnexSettings } from './knex-settings.ts';
import type { KnexRecipe } from './recipe.ts';
import { serverKnexSettings } from './server-connection.ts';
import { sqliteReaderSettings } from './sqlite-connection.ts';

/** How long a read may wait for one of its reader's connections (knex's own default, as for SQLite's reader). */
const READER_QUEUE_MS = 60_000;

/**
 * Settings for a reader of the same database, as a worker thread opens them: SQLite read-only beside
 * the writer (WAL lets it read while the service writes); a server database through a small pool of
 * its own, so long reads never take a connection the request path waits for. Reads beyond its two
 * connections queue for them: waiting behind a verification is no outage, so only reaching the database
 * keeps the request path's bound (acquireTimeoutMs); waiting for a free connection of this pool does not
 * turn into 503 "unreachable" after it.
 */
export function readerSettings(recipe: KnexRecipe): KnexSettings {
  if (recipe.kind === 'sqlite') return sqliteReaderSettings(recipe.file);
  const settings = serverKnexSettings(recipe.kind, recipe.connection, { ...recipe.pool, max: 2 });
  return { ...settings, config: { ...settings.config, acquireConnectionTimeout: READER_QUEUE_MS } };
}
