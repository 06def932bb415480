import type { Migration } from '../../sql-support/migration-source.ts';

/** Versioned journal schema; see migrationSource for how versions are applied. */
const MIGRATIONS: Migration[] = [
  {
    name: '001_key_events_and_material',
    async up(knex) {
      await knex.schema.createTable('svc_key_events', (t) => {
        t.string('key_id', 36).notNullable();
        t.integer('seq').notNullable();
        t.string('type', 32).notNullable();
        t.text('payload').notNullable();
        t.string('occurred_at', 32).notNullable();
        t.primary(['key_id', 'seq']);
      });
      await knex.schema.createTable('svc_key_material', (t) => {
        t.string('key_id', 36).notNullable();
        t.string('material_id', 36).notNullable();
        t.binary('wrapped').notNullable();
        t.primary(['key_id', 'material_id']);
      });
    },
  },
];

export const journalMigrations: Migration[] = MIGRATIONS;
