import type { Knex } from 'knex';

/** How to reach one SQL database: knex's config plus what must happen before the first connection. */
export interface KnexSettings {
  config: Knex.Config;
  prepare?: () => Promise<void>;
}
