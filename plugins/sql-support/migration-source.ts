import type { Knex } from 'knex';

export interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
}

/**
 * A knex migration source over an ordered list kept in code. knex records applied names in its own
 * table, so running `latest` at every start is idempotent; new versions are appended, never edited.
 */
export function migrationSource(migrations: Migration[]): Knex.MigrationSource<Migration> {
  return {
    getMigrations: async () => migrations,
    getMigrationName: (m) => m.name,
    getMigration: async (m) => ({ up: m.up, down: async () => {} }),
  };
}
