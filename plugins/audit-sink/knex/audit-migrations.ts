import type { Migration } from '../../sql-support/migration-source.ts';

/** One audit schema for every SQL sink (SQLite, PostgreSQL, MySQL/MariaDB). */
const MIGRATIONS: Migration[] = [
  {
    name: '001_audit_records',
    async up(knex) {
      await knex.schema.createTable('svc_audit', (t) => {
        t.bigIncrements('id');
        // ISO 8601 UTC with milliseconds: fixed width, so text order is time order on every backend.
        t.string('occurred_at', 24).notNullable();
        t.string('actor', 256).notNullable();
        t.string('actor_kind', 16).notNullable();
        t.string('operation', 32).notNullable();
        t.string('resource', 300).notNullable();
        t.text('outcome').notNullable();
        t.text('context').notNullable();
        t.string('correlation_id', 128).notNullable();
      });
      for (const column of ['actor', 'resource', 'operation']) {
        await knex.raw(`create index svc_audit_${column}_time on svc_audit (${column}, occurred_at desc)`);
      }
      await knex.raw('create index svc_audit_time on svc_audit (occurred_at)');
    },
  },
];

export const auditMigrations: Migration[] = MIGRATIONS;
