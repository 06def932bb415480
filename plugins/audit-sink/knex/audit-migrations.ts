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
  {
    // A unique event id, so a record delivered twice (relayed from the outbox) is stored once; a probe
    // row that /readyz rewrites, so a store that can no longer be written (a full disk) reads unready;
    // utf8mb4 on MySQL so that any text a caller sends can be stored.
    name: '002_event_id_probe_utf8mb4',
    async up(knex) {
      const mysql = knex.client.config.client === 'mysql2';
      if (mysql) await knex.raw('alter table svc_audit convert to character set utf8mb4 collate utf8mb4_bin');
      await knex.schema.alterTable('svc_audit', (t) => {
        t.string('event_id', 36).nullable();
        t.unique(['event_id'], { indexName: 'svc_audit_event_id' });
      });
      await knex.schema.createTable('svc_audit_probe', (t) => {
        t.integer('id').notNullable().primary();
        t.string('checked_at', 24).notNullable();
      });
    },
  },
  {
    // Tamper evidence: each node's rows form a hash chain (node, prev_hash, hash). Rows written before
    // this migration stay unchained; verification starts at a node's first chained row.
    name: '003_hash_chain',
    async up(knex) {
      await knex.schema.alterTable('svc_audit', (t) => {
        t.string('node', 128).nullable();
        t.string('prev_hash', 64).nullable();
        t.string('hash', 64).nullable();
      });
      await knex.raw('create index svc_audit_node_id on svc_audit (node, id)');
    },
  },
  {
    // Audit pages are read newest first by (occurred_at, id), and long reads seek from the last row of
    // the previous page. On PostgreSQL an index on occurred_at alone leaves the id order to a sort the
    // planner may run over the whole window for every page; (occurred_at, id) gives the order itself.
    // SQLite and InnoDB indexes already end in the row id, so they keep theirs.
    name: '004_audit_time_id_index',
    async up(knex) {
      if (knex.client.config.client !== 'pg') return;
      await knex.raw('create index svc_audit_time_id on svc_audit (occurred_at, id)');
      await knex.raw('drop index svc_audit_time');
    },
  },
  {
    // GET /v1/audit?promptId= finds one prompt's records: the context's agent.promptId copied into its own
    // indexed column at write. Rows written before have none (no door recorded a prompt id then).
    name: '005_audit_prompt_id',
    async up(knex) {
      await knex.schema.alterTable('svc_audit', (t) => {
        t.string('prompt_id', 128).nullable();
      });
      await knex.raw('create index svc_audit_prompt_id_time on svc_audit (prompt_id, occurred_at desc)');
    },
  },
];

export const auditMigrations: Migration[] = MIGRATIONS;
