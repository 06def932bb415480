import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { type IndexedKey, indexedKeyOf, type KeyEvent, type KeyState, type LocateFilter, type LocatePosition, stateAfter } from '../../../kernel/index.ts';

/**
 * svc_key_index: one row per key with what Locate filters and orders on, written in the same
 * transaction as the key's events. Owners and tenants are subjects of any length, so they are matched
 * through their SHA-256 (a fixed-width, indexable column) and compared in full as well.
 */

const TABLE = 'svc_key_index';

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

interface IndexRow {
  key_id: string;
  name: string;
  algorithm: string;
  state: string;
  owner: string;
  owner_hash: string;
  tenant: string | null;
  tenant_hash: string | null;
  created_at: string;
}

const rowOf = (key: IndexedKey): IndexRow => ({
  key_id: key.id, name: key.name, algorithm: key.algorithm, state: key.state, owner: key.owner, owner_hash: sha256Hex(key.owner),
  tenant: key.tenant ?? null, tenant_hash: key.tenant === undefined ? null : sha256Hex(key.tenant), created_at: key.createdAt,
});

const keyOf = (row: IndexRow): IndexedKey => ({
  id: row.key_id, name: row.name, algorithm: row.algorithm, state: row.state as KeyState, owner: row.owner,
  ...(row.tenant === null || row.tenant === undefined ? {} : { tenant: row.tenant }), createdAt: row.created_at,
});

/** The table and its indexes: newest-first order overall, and per owner, state and name. */
export async function createKeyIndex(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  await knex.schema.createTable(TABLE, (t) => {
    // Binary collation: names compare case-sensitively, as the policy's name patterns do.
    if (mysql) {
      t.charset('utf8mb4');
      t.collate('utf8mb4_bin');
    }
    t.string('key_id', 36).notNullable().primary();
    t.string('name', 256).notNullable();
    t.string('algorithm', 16).notNullable();
    t.string('state', 16).notNullable();
    t.text('owner').notNullable();
    t.string('owner_hash', 64).notNullable();
    t.text('tenant').nullable();
    t.string('tenant_hash', 64).nullable();
    t.string('created_at', 32).notNullable();
    t.index(['created_at', 'key_id'], 'svc_key_index_created');
    t.index(['owner_hash', 'created_at', 'key_id'], 'svc_key_index_owner');
    t.index(['tenant_hash', 'created_at', 'key_id'], 'svc_key_index_tenant');
    t.index(['state', 'created_at', 'key_id'], 'svc_key_index_state');
    t.index(['name', 'created_at', 'key_id'], 'svc_key_index_name');
  });
}

/** Fills the index from the events of keys written before it existed, a page of keys at a time. */
export async function backfillKeyIndex(knex: Knex, page = 500): Promise<void> {
  const stateTypes = ['KeyActivated', 'Revoked', 'Compromised', 'Destroyed'];
  for (let last = '';;) {
    const created = (await knex('svc_key_events').where({ type: 'KeyCreated' }).andWhere('key_id', '>', last).orderBy('key_id').limit(page).select('key_id', 'payload')) as Array<{ key_id: string; payload: string }>;
    if (created.length === 0) return;
    last = created[created.length - 1]!.key_id;
    const ids = created.map((r) => r.key_id);
    const changes = (await knex('svc_key_events').whereIn('key_id', ids).whereIn('type', stateTypes).orderBy([{ column: 'key_id' }, { column: 'seq' }]).select('key_id', 'type')) as Array<{ key_id: string; type: string }>;
    const states = new Map<string, KeyState>();
    for (const change of changes) states.set(change.key_id, stateAfter({ type: change.type } as KeyEvent)!);
    const rows = created.map((r) => {
      const key = indexedKeyOf(r.key_id, JSON.parse(r.payload) as Extract<KeyEvent, { type: 'KeyCreated' }>);
      return rowOf({ ...key, state: states.get(r.key_id) ?? key.state });
    });
    await knex.batchInsert(TABLE, rows, 100);
  }
}

/** Keeps the key's row in step with events being appended, inside the append's transaction. */
export async function indexAppended(trx: Knex.Transaction, keyId: string, events: KeyEvent[]): Promise<void> {
  let created: IndexedKey | undefined;
  let state: KeyState | undefined;
  for (const event of events) {
    if (event.type === 'KeyCreated') created = indexedKeyOf(keyId, event);
    else state = stateAfter(event) ?? state;
  }
  if (created) await trx(TABLE).insert(rowOf({ ...created, state: state ?? created.state }));
  else if (state) await trx(TABLE).where({ key_id: keyId }).update({ state });
}

type Dialect = 'pg' | 'mysql' | 'sqlite';

const dialectOf = (knex: Knex): Dialect => {
  const client = String(knex.client.config.client);
  return client === 'pg' ? 'pg' : client === 'mysql2' ? 'mysql' : 'sqlite';
};

/**
 * A name glob (`*` any run of characters) as a condition. SQLite's LIKE ignores ASCII case, so it gets
 * GLOB (case-sensitive; its other wildcards bracketed); the others get LIKE with `!` as the escape
 * (a backslash means different things in PostgreSQL's and MySQL's string literals). MySQL compares
 * `=` ignoring trailing spaces, so an exact name is a LIKE there too.
 */
function nameCondition(dialect: Dialect, glob: string): { sql: string; binding: string } {
  if (dialect === 'sqlite') {
    if (!glob.includes('*')) return { sql: 'name = ?', binding: glob };
    return { sql: 'name GLOB ?', binding: glob.replace(/[[?]/g, (c) => `[${c}]`) };
  }
  if (dialect === 'pg' && !glob.includes('*')) return { sql: 'name = ?', binding: glob };
  return { sql: "name LIKE ? ESCAPE '!'", binding: glob.replace(/[!%_]/g, (c) => `!${c}`).replace(/\*/g, '%') };
}

/** Up to `limit` rows matching `filter` after `after`, newest first: one query on the index. */
export async function locateKeys(knex: Knex, filter: LocateFilter, after: LocatePosition | undefined, limit: number): Promise<IndexedKey[]> {
  const dialect = dialectOf(knex);
  const q = knex(TABLE).select('key_id', 'name', 'algorithm', 'state', 'owner', 'tenant', 'created_at');
  if (filter.name !== undefined) {
    const { sql, binding } = nameCondition(dialect, filter.name);
    q.whereRaw(sql, [binding]);
  }
  if (filter.state !== undefined) q.where('state', filter.state);
  if (filter.algorithm !== undefined) q.where('algorithm', filter.algorithm);
  if (filter.owner !== undefined) q.where('owner_hash', sha256Hex(filter.owner)).andWhere('owner', filter.owner);
  if (filter.createdAfter !== undefined) q.where('created_at', '>', filter.createdAfter);
  if (filter.createdBefore !== undefined) q.where('created_at', '<', filter.createdBefore);
  const scope = filter.scope;
  if (scope !== undefined && scope !== 'every') {
    const { owners, tenants, names, ids } = scope;
    if (owners.length + tenants.length + names.length + ids.length === 0) return [];
    q.where((any) => {
      if (owners.length) any.orWhereIn('owner_hash', owners.map(sha256Hex));
      if (tenants.length) any.orWhereIn('tenant_hash', tenants.map(sha256Hex));
      if (ids.length) any.orWhereIn('key_id', ids);
      for (const glob of names) {
        const { sql, binding } = nameCondition(dialect, glob);
        any.orWhereRaw(sql, [binding]);
      }
    });
  }
  // The seek written so that an index on (created_at, key_id) serves it on every database.
  if (after) q.where('created_at', '<=', after.createdAt).andWhere((b) => b.where('created_at', '<', after.createdAt).orWhere('key_id', '<', after.id));
  const rows = (await q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'key_id', order: 'desc' }]).limit(Math.max(0, limit))) as IndexRow[];
  return rows.map(keyOf);
}
