import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import {
  type IndexedKey,
  indexedKeyOf,
  type KeyEvent,
  type KeyState,
  type LocatedRows,
  type LocateFilter,
  type LocatePosition,
  matchesLocate,
  stateAfter,
} from '../../../kernel/index.ts';

/**
 * svc_key_index: one row per key with what Locate filters and orders on, written in the same
 * transaction as the key's events. Owners and tenants are subjects of any length, so they are matched
 * through their SHA-256 (a fixed-width, indexable column) and compared in full as well.
 */

const TABLE = 'svc_key_index';

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A tag's row key in svc_key_tags: NUL never occurs in a tag (every door refuses it), so it separates key from value. */
export const tagPairHash = (name: string, value: string) => sha256Hex(`${name}\u0000${value}`);

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
  key_id: key.id,
  name: key.name,
  algorithm: key.algorithm,
  state: key.state,
  owner: key.owner,
  owner_hash: sha256Hex(key.owner),
  tenant: key.tenant ?? null,
  tenant_hash: key.tenant === undefined ? null : sha256Hex(key.tenant),
  created_at: key.createdAt,
});

const keyOf = (row: IndexRow): IndexedKey => ({
  id: row.key_id,
  name: row.name,
  algorithm: row.algorithm,
  state: row.state as KeyState,
  owner: row.owner,
  ...(row.tenant === null || row.tenant === undefined ? {} : { tenant: row.tenant }),
  createdAt: row.created_at,
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

const STATE_EVENTS = ['KeyActivated', 'Revoked', 'Compromised', 'Destroyed'] as const;

/**
 * Brings the index in step with events it did not see being written: every key on the upgrade that
 * creates the index (migration 011), and at each start those appended by a node of an older version
 * (during a rolling upgrade) or written around the service. Keys without a row are indexed, a page of
 * keys at a time (only when the counts of keys differ); rows whose state differs from the key's last
 * state event are corrected (one aggregate query). The counts returned are for the log.
 */
export async function reconcileKeyIndex(knex: Knex, page = 1000): Promise<{ added: number; corrected: number }> {
  let added = 0;
  // Keys are never removed from either table, so equal counts mean no key is missing: the usual start.
  const count = async (query: Knex.QueryBuilder) =>
    Number(((await query.count({ n: '*' }).first()) as { n: number | string }).n);
  const created = await count(knex('svc_key_events').where({ seq: 1 }));
  if (created !== (await count(knex(TABLE)))) {
    // A walk over the keys in id order (the events' primary key), a page at a time: each page one range read.
    for (let last = ''; ; ) {
      const events = (await knex('svc_key_events')
        .where('key_id', '>', last)
        .andWhere({ seq: 1, type: 'KeyCreated' })
        .orderBy('key_id')
        .limit(page)
        .select('key_id', 'payload')) as Array<{ key_id: string; payload: string }>;
      if (events.length === 0) break;
      last = events[events.length - 1]!.key_id;
      const indexed = new Set(
        (
          (await knex(TABLE)
            .whereIn(
              'key_id',
              events.map((r) => r.key_id),
            )
            .select('key_id')) as Array<{ key_id: string }>
        ).map((r) => r.key_id),
      );
      const missing = events.filter((r) => !indexed.has(r.key_id));
      if (missing.length === 0) continue;
      const ids = missing.map((r) => r.key_id);
      const changes = (await knex('svc_key_events')
        .whereIn('key_id', ids)
        .whereIn('type', STATE_EVENTS)
        .orderBy([{ column: 'key_id' }, { column: 'seq' }])
        .select('key_id', 'type')) as Array<{ key_id: string; type: string }>;
      const states = new Map<string, KeyState>();
      for (const change of changes) states.set(change.key_id, stateAfter({ type: change.type } as KeyEvent)!);
      const rows = missing.map((r) => {
        const key = indexedKeyOf(r.key_id, JSON.parse(r.payload) as Extract<KeyEvent, { type: 'KeyCreated' }>);
        return rowOf({ ...key, state: states.get(r.key_id) ?? key.state });
      });
      // Another node starting at the same moment may index the same keys: a row that exists stays as it is.
      // 9 bindings a row: 1,000 rows stay far below every database's limit on bindings per statement.
      await knex(TABLE).insert(rows).onConflict('key_id').ignore();
      added += rows.length;
    }
  }
  const latest = knex('svc_key_events')
    .whereIn('type', STATE_EVENTS)
    .groupBy('key_id')
    .select('key_id')
    .max({ seq: 'seq' })
    .as('m');
  const lastChanges = (await knex('svc_key_events as e')
    .join(latest, (j) => j.on('m.key_id', 'e.key_id').andOn('m.seq', 'e.seq'))
    .join(`${TABLE} as i`, 'i.key_id', 'e.key_id')
    .select('e.key_id', 'e.type', 'i.state')) as Array<{ key_id: string; type: string; state: string }>;
  let corrected = 0;
  for (const row of lastChanges) {
    const state = stateAfter({ type: row.type } as KeyEvent)!;
    if (state === row.state) continue;
    // Only from the state read: an append committed since has set the row itself.
    corrected += Number(await knex(TABLE).where({ key_id: row.key_id, state: row.state }).update({ state }));
  }
  return { added, corrected };
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

/** Index rows one locate reads at most when a filter is matched here rather than by an index. */
export const LOCATE_WINDOW_ROWS = 2000;

/**
 * Up to `limit` rows matching `filter` after `after`, newest first. Equalities an index serves (owner,
 * state, an exact name, the creation window, a scope of owners, tenants and ids) are in the query; what
 * no index serves (a name glob, the algorithm, a scope naming globs) is matched here, over at most
 * `window` rows read in order: a window read to its end without `limit` matches answers `scannedTo`,
 * its last row, so no call reads the whole table for a filter that matches little.
 */
export async function locateKeys(
  knex: Knex,
  filter: LocateFilter,
  after: LocatePosition | undefined,
  limit: number,
  window = LOCATE_WINDOW_ROWS,
): Promise<LocatedRows> {
  const query = limit > 0 ? locateQuery(knex, filter, after, limit, window) : undefined;
  if (!query) return { keys: [] };
  const rows = ((await query) as IndexRow[]).map(keyOf);
  // Tags are matched by the query (svc_key_tags); the rows carry none to match them again.
  if (filter.tags) filter = { ...filter, tags: undefined };
  if (!needsWindow(filter)) return { keys: rows.filter((k) => matchesLocate(k, filter)).slice(0, limit) };
  const keys: IndexedKey[] = [];
  for (const row of rows) {
    if (!matchesLocate(row, filter)) continue;
    keys.push(row);
    if (keys.length === limit) return { keys };
  }
  const last = rows.at(-1);
  return rows.length === window && last ? { keys, scannedTo: { createdAt: last.createdAt, id: last.id } } : { keys };
}

const hasGlob = (filter: LocateFilter) => filter.name?.includes('*') ?? false;
const scopeInQuery = (filter: LocateFilter) =>
  filter.scope !== undefined && filter.scope !== 'every' && filter.scope.names.length === 0;
const needsWindow = (filter: LocateFilter) =>
  hasGlob(filter) ||
  filter.algorithm !== undefined ||
  (filter.scope !== undefined && filter.scope !== 'every' && !scopeInQuery(filter));

/** The query locateKeys runs (undefined when the scope names no key: nothing to ask); a benchmark EXPLAINs it. */
export function locateQuery(
  knex: Knex,
  filter: LocateFilter,
  after: LocatePosition | undefined,
  limit: number,
  window = LOCATE_WINDOW_ROWS,
): Knex.QueryBuilder | undefined {
  const q = knex(TABLE).select('key_id', 'name', 'algorithm', 'state', 'owner', 'tenant', 'created_at');
  // MySQL's = ignores trailing spaces: the exact comparison in locateKeys has the last word.
  if (filter.name !== undefined && !hasGlob(filter)) q.where('name', filter.name);
  if (filter.state !== undefined) q.where('state', filter.state);
  if (filter.owner !== undefined) q.where('owner_hash', sha256Hex(filter.owner));
  if (filter.createdAfter !== undefined) q.where('created_at', '>', filter.createdAfter);
  if (filter.createdBefore !== undefined) q.where('created_at', '<', filter.createdBefore);
  if (filter.tags?.length) whereTagged(q, knex, filter.tags, TABLE);
  const scope = filter.scope;
  if (scope !== undefined && scope !== 'every') {
    const { owners, tenants, names, ids } = scope;
    if (owners.length + tenants.length + names.length + ids.length === 0) return undefined;
    if (scopeInQuery(filter)) {
      q.where((any) => {
        if (owners.length) any.orWhereIn('owner_hash', owners.map(sha256Hex));
        if (tenants.length) any.orWhereIn('tenant_hash', tenants.map(sha256Hex));
        if (ids.length) any.orWhereIn('key_id', ids);
      });
    }
  }
  // The seek written so that an index on (created_at, key_id) serves it on every database.
  if (after)
    q.where('created_at', '<=', after.createdAt).andWhere((b) =>
      b.where('created_at', '<', after.createdAt).orWhere('key_id', '<', after.id),
    );
  return q
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'key_id', order: 'desc' },
    ])
    .limit(Math.max(0, needsWindow(filter) ? window : limit));
}

/** Narrows a key index query to keys carrying every one of these tags (svc_key_tags, knex-key-tags.ts). */
export function whereTagged(q: Knex.QueryBuilder, knex: Knex, tags: Array<[string, string]>, index: string): void {
  for (const [name, value] of tags)
    q.whereExists(
      knex('svc_key_tags as t')
        .select(knex.raw('1'))
        .whereRaw(`t.key_id = ${index}.key_id`)
        .andWhere('t.pair_hash', tagPairHash(name, value)),
    );
}
