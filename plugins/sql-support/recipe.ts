import type { ServerConnection } from './connection-url.ts';

/** The pool of a server database's connections, per node. */
export interface PoolOptions {
  /** Pool size per node. */
  max: number;
  /** How long a request waits for a connection before it fails (503) instead of hanging. */
  acquireTimeoutMs: number;
  bootTimeoutMs: number;
}

/**
 * How a set of knex settings was made, as plain data: KnexSettings hold functions (a driver class, pool
 * hooks), which cannot be sent to a worker thread; the recipe can, and the worker rebuilds its own
 * settings from it. The password travels with it only within the process.
 */
export type KnexRecipe =
  | { kind: 'sqlite'; file: string; walSizeLimitBytes?: number }
  | { kind: 'postgresql' | 'mysql'; connection: ServerConnection; pool: PoolOptions };
