import type { Knex } from 'knex';
import { type KeyEvent, tagsAfter } from '../../../kernel/index.ts';
import { sha256Hex, tagPairHash } from './knex-key-index.ts';

/**
 * svc_key_tags: one row per tag of a key, for Locate's `tag=k:v` filters (the key's tags themselves are
 * folded from its events). Matched through the SHA-256 of key and value, a fixed-width indexable column
 * compared exactly: tag keys and values are callers' text, and MySQL's collations would fold case and
 * ignore trailing spaces where tags compare exactly.
 */
const TABLE = 'svc_key_tags';

export async function createKeyTags(knex: Knex): Promise<void> {
  await knex.schema.createTable(TABLE, (t) => {
    t.string('key_id', 36).notNullable();
    t.string('tag_hash', 64).notNullable();
    t.string('pair_hash', 64).notNullable();
    t.primary(['key_id', 'tag_hash']);
    t.index(['pair_hash', 'key_id'], 'svc_key_tags_pair');
  });
}

/** Inside an append's transaction: the key's tag rows follow its KeyCreated and TagsChanged events. */
export async function keepKeyTags(trx: Knex.Transaction, keyId: string, events: KeyEvent[]): Promise<void> {
  for (const event of events) {
    if (event.type === 'KeyCreated' && event.spec.tags) await insertTags(trx, keyId, event.spec.tags);
    if (event.type !== 'TagsChanged') continue;
    const touched = [...Object.keys(event.set ?? {}), ...(event.removed ?? [])];
    if (touched.length) await trx(TABLE).where({ key_id: keyId }).whereIn('tag_hash', touched.map(sha256Hex)).delete();
    // What the event leaves set: its `set` less the keys it removes (tagsAfter applies removals last).
    await insertTags(trx, keyId, tagsAfter(undefined, event));
  }
}

async function insertTags(trx: Knex.Transaction, keyId: string, tags: Record<string, string>): Promise<void> {
  const rows = Object.entries(tags).map(([name, value]) => ({
    key_id: keyId,
    tag_hash: sha256Hex(name),
    pair_hash: tagPairHash(name, value),
  }));
  if (rows.length) await trx(TABLE).insert(rows);
}
