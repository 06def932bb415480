import type { Migration } from '../../sql-support/migration-source.ts';
import { createAccessKeys } from './knex-access-keys.ts';
import { createKeyIndex, sha256Hex } from './knex-key-index.ts';
import { createKeyAliases } from './knex-key-aliases.ts';
import { createKeyNames } from './knex-key-names.ts';
import { createKeyTags } from './knex-key-tags.ts';

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
  {
    // Audit records of key state changes, written in the change's own transaction and removed once the
    // primary audit sink has stored them. utf8mb4 so that any text a caller sends can be stored.
    name: '002_audit_outbox_and_utf8mb4',
    async up(knex) {
      const mysql = knex.client.config.client === 'mysql2';
      if (mysql) {
        for (const table of ['svc_key_events', 'svc_key_material'])
          await knex.raw(`alter table ${table} convert to character set utf8mb4 collate utf8mb4_bin`);
      }
      await knex.schema.createTable('svc_audit_outbox', (t) => {
        if (mysql) t.charset('utf8mb4');
        t.string('id', 36).notNullable().primary();
        t.string('occurred_at', 24).notNullable().index('svc_audit_outbox_time');
        t.text('record').notNullable();
      });
    },
  },
  {
    // One key-wrapping key per managed key, wrapped by the root of trust's KEK named in kek_id. Kept
    // apart from the (large) material table so that destroy can rebuild this small table and leave no
    // page holding a destroyed key's KWK.
    name: '003_key_wrapping_keys',
    async up(knex) {
      await knex.schema.createTable('svc_key_kwk', (t) => {
        if (knex.client.config.client === 'mysql2') t.charset('utf8mb4');
        t.string('key_id', 36).notNullable().primary();
        t.string('kek_id', 256).notNullable().index('svc_key_kwk_kek');
        t.binary('wrapped').notNullable();
      });
    },
  },
  {
    // The registry of issued agent tokens (GET /v1/agents, the kill switch). Never the token itself.
    name: '004_agent_registry',
    async up(knex) {
      await knex.schema.createTable('svc_agents', (t) => {
        if (knex.client.config.client === 'mysql2') t.charset('utf8mb4');
        t.increments('n'); // registration order, for listing newest first
        t.string('agent_id', 64).notNullable().unique('svc_agents_id');
        t.string('jti', 128).notNullable();
        t.string('parent', 512).notNullable().index('svc_agents_parent');
        t.string('parent_jti', 128).nullable();
        t.string('purpose', 256).notNullable();
        t.text('scopes').notNullable();
        t.string('issued_at', 24).notNullable().index('svc_agents_issued');
        t.string('expires_at', 24).notNullable();
        t.string('revoked_at', 24).nullable();
      });
    },
  },
  {
    // The deployment's nodes (each registers itself at start) and the audit chain head each last recorded,
    // kept here rather than beside the audit rows so that writing the audit database alone cannot invent a
    // node or cut a chain's end unseen. svc_node_adoption records, once, the nodes an audit trail written
    // before this registry already held (they are registered as origin 'upgrade').
    name: '005_node_registry',
    async up(knex) {
      const mysql = knex.client.config.client === 'mysql2';
      await knex.schema.createTable('svc_nodes', (t) => {
        if (mysql) t.charset('utf8mb4');
        t.string('node', 128).notNullable().primary();
        t.string('registered_at', 24).notNullable();
        t.string('origin', 16).notNullable();
        t.bigInteger('head_row_id').nullable();
        t.string('head_hash', 64).nullable();
        t.string('head_occurred_at', 24).nullable();
        t.bigInteger('head_count').nullable();
        t.string('head_recorded_at', 24).nullable();
      });
      await knex.schema.createTable('svc_node_adoption', (t) => {
        if (mysql) t.charset('utf8mb4');
        t.string('name', 32).notNullable().primary();
        t.string('adopted_at', 24).notNullable();
        t.bigInteger('legacy_max_id').notNullable();
      });
    },
  },
  {
    // Destroyed keys whose deleted KWK and material may still sit in the database's own files (free
    // pages, the WAL) until the background erase has rebuilt or checkpointed them; a restart resumes
    // them. Every key destroyed before this version gets a task, so an erase that an older version
    // left unfinished (a cancelled rebuild) is done once more.
    name: '006_erasure_tasks',
    async up(knex) {
      await knex.schema.createTable('svc_erasure_tasks', (t) => {
        if (knex.client.config.client === 'mysql2') t.charset('utf8mb4');
        t.string('key_id', 36).notNullable().primary();
        t.string('recorded_at', 32).notNullable();
      });
      await knex.raw(
        'insert into svc_erasure_tasks (key_id, recorded_at) select key_id, ' +
          "max(occurred_at) from svc_key_events where type = 'Destroyed' group by key_id",
      );
    },
  },
  {
    // Revoking a token by its jti (POST /v1/tokens/revoke) looks up whether it is an agent's.
    name: '007_agent_jti_index',
    async up(knex) {
      await knex.schema.alterTable('svc_agents', (t) => {
        t.index(['jti'], 'svc_agents_jti');
      });
    },
  },
  {
    // Revoking a Human's token revokes, in the registry, the agents issued under it (by parent_jti).
    name: '008_agent_parent_jti_index',
    async up(knex) {
      await knex.schema.alterTable('svc_agents', (t) => {
        t.index(['parent_jti'], 'svc_agents_parent_jti');
      });
    },
  },
  {
    // A node's head recorded as it stopped: no row may follow it on the chain until the node starts again.
    name: '009_node_head_closed',
    async up(knex) {
      await knex.schema.alterTable('svc_nodes', (t) => {
        t.boolean('head_closed').notNullable().defaultTo(false);
      });
    },
  },
  {
    // The newest row of each chain that retention pruning removed, which the first row left links to.
    name: '010_node_pruned_row',
    async up(knex) {
      await knex.schema.alterTable('svc_nodes', (t) => {
        t.bigInteger('pruned_row_id').nullable();
        t.string('pruned_hash', 64).nullable();
        t.string('pruned_recorded_at', 24).nullable();
      });
    },
  },
  {
    // The key index that finding keys (Locate) reads: one row per key, kept with every append. Keys
    // written before it are indexed from their events by the reconcile every start runs, after the
    // migrations: not here, where the boot timeout bounds the work (about 17 s per 100,000 keys).
    name: '011_key_index',
    async up(knex) {
      await createKeyIndex(knex);
    },
  },
  {
    // Outstanding import tokens (POST /v1/keys/import-parameters), here so that any node can spend one
    // and a restart keeps it: the token as its SHA-256 only, the RSA wrapping key sealed under a key the
    // root of trust wraps (never plain). A row is deleted when spent and pruned once expired.
    name: '012_import_tokens',
    async up(knex) {
      await knex.schema.createTable('svc_import_tokens', (t) => {
        if (knex.client.config.client === 'mysql2') t.charset('utf8mb4');
        t.string('token_hash', 64).notNullable().primary();
        t.string('import_id', 36).notNullable();
        t.string('issued_to', 512).notNullable().index('svc_import_tokens_issued_to');
        t.string('key_type', 64).notNullable();
        t.string('created_at', 24).notNullable();
        t.string('expires_at', 24).notNullable().index('svc_import_tokens_expires');
        t.string('kek_id', 256).notNullable();
        t.binary('sealing_key').notNullable();
        t.binary('private_key').notNullable();
      });
    },
  },
  {
    // Keys whose destruction waits for its date (DELETE with a waiting period), written with the
    // DestroyScheduled event and removed with DestroyCancelled or Destroyed, so every node finds the
    // keys that are due with one indexed read, whichever node scheduled them.
    name: '013_destroy_schedule',
    async up(knex) {
      await knex.schema.createTable('svc_destroy_schedule', (t) => {
        if (knex.client.config.client === 'mysql2') t.charset('utf8mb4');
        t.string('key_id', 36).notNullable().primary();
        t.string('destroy_at', 32).notNullable();
        t.index(['destroy_at'], 'svc_destroy_schedule_at');
      });
    },
  },
  {
    // Import tokens are found by the SHA-256 of their caller's subject: subjects run to 8 KB, longer than
    // 012's varchar(512) (PostgreSQL and strict MySQL refused the insert), and a MySQL collation that
    // ignores case would have matched another caller's subject. issued_to keeps the subject in full, as
    // text. svc_import_token_holders holds one row per caller with tokens, which issuing a token writes
    // first and so locks: the count of the caller's tokens and the insert are one step on every node.
    name: '014_import_token_holders',
    async up(knex) {
      const client = knex.client.config.client;
      await knex.schema.alterTable('svc_import_tokens', (t) => {
        t.dropIndex(['issued_to'], 'svc_import_tokens_issued_to');
        t.string('issued_to_hash', 64).notNullable().defaultTo('');
      });
      // SQLite's varchar has no length limit: its column stays as it is.
      if (client === 'pg') await knex.raw('alter table svc_import_tokens alter column issued_to type text');
      if (client === 'mysql2')
        await knex.raw(
          'alter table svc_import_tokens modify issued_to text character set utf8mb4 collate utf8mb4_bin not null',
        );
      // Tokens issued since 012 (at most a day's worth, each caller's capped): hashed here, SQLite having no SHA-256.
      for (const row of await knex('svc_import_tokens').select('token_hash', 'issued_to')) {
        await knex('svc_import_tokens')
          .where({ token_hash: row.token_hash })
          .update({ issued_to_hash: sha256Hex(row.issued_to) });
      }
      await knex.schema.alterTable('svc_import_tokens', (t) => {
        t.index(['issued_to_hash', 'expires_at'], 'svc_import_tokens_holder');
      });
      await knex.schema.createTable('svc_import_token_holders', (t) => {
        if (client === 'mysql2') t.charset('utf8mb4');
        t.string('issued_to_hash', 64).notNullable().primary();
        // The expiry of the caller's newest token: the row is pruned with it.
        t.string('held_until', 24).notNullable().index('svc_import_token_holders_until');
      });
    },
  },
  {
    // Key names are unique among keys that are not Destroyed (knex-key-names.ts). Live keys are given
    // their names by the reconcile every start runs after the key index's: an older version let keys
    // share a name, and those keep it.
    name: '015_key_names',
    async up(knex) {
      await createKeyNames(knex);
    },
  },
  {
    // An agent acts only with what the registry recorded at issue: its parent's groups then are kept
    // here (the token's claims prove who the agent is, nothing more). Rows from before read as none.
    name: '016_agent_parent_groups',
    async up(knex) {
      await knex.schema.alterTable('svc_agents', (t) => {
        t.text('parent_groups').nullable();
      });
    },
  },
  {
    // Aliases (unique per deployment) and the tag rows Locate filters on.
    name: '017_key_aliases_and_tags',
    async up(knex) {
      await createKeyAliases(knex);
      await createKeyTags(knex);
    },
  },
  {
    // The key patterns an agent was issued with (`keys` at issue); rows from before have none: any key
    // its scopes and its parent allow.
    name: '018_agent_key_patterns',
    async up(knex) {
      await knex.schema.alterTable('svc_agents', (t) => {
        t.text('key_patterns').nullable();
      });
    },
  },
  {
    // The versions of the role-based policy's bindings (PUT /v1/policy), one row each, numbered without a
    // gap: the primary key on version lets one of two nodes writing the same next version commit. The
    // document is JSON text, MEDIUMTEXT on MySQL (plain TEXT stops at 64 KB), utf8mb4 for any subject.
    name: '019_policy_versions',
    async up(knex) {
      const mysql = knex.client.config.client === 'mysql2';
      await knex.schema.createTable('svc_policy_versions', (t) => {
        if (mysql) t.charset('utf8mb4');
        t.integer('version').notNullable().primary();
        t.text('document', 'mediumtext').notNullable();
        t.string('created_at', 24).notNullable();
        t.text('created_by').notNullable();
      });
    },
  },
  {
    // Access keys (POST /v1/access-keys), their secrets sealed under the root of trust, and one row per
    // principal holding some, which a create locks so that the per-principal limit holds across nodes.
    name: '020_access_keys',
    async up(knex) {
      await createAccessKeys(knex);
    },
  },
];

export const journalMigrations: Migration[] = MIGRATIONS;
