import type { Knex } from 'knex';
import { type KeyEvent, NameTaken } from '../../../kernel/index.ts';
import { isUniqueViolation } from '../../sql-support/unique-violation.ts';
import { sha256Hex } from './knex-key-index.ts';

/**
 * svc_key_names: which key holds each name, one row per name held by a key that is not Destroyed,
 * keyed by the SHA-256 of the name. The primary key is what makes names unique across every node: of
 * two creates racing on one name, the second insert fails and its whole append rolls back. A hash,
 * not the name: names run to 256 characters of any script, and MySQL collations ignore trailing spaces
 * (and, by default, case) where the service compares names exactly.
 */
const TABLE = 'svc_key_names';
const INDEX = 'svc_key_index';

export async function createKeyNames(knex: Knex): Promise<void> {
  await knex.schema.createTable(TABLE, (t) => {
    if (knex.client.config.client === 'mysql2') t.charset('utf8mb4');
    t.string('name_hash', 64).notNullable().primary();
    t.string('key_id', 36).notNullable().index('svc_key_names_key');
  });
}

/** Inside an append's transaction: a KeyCreated claims its name (NameTaken when held), a Destroyed frees it. */
export async function keepKeyNames(trx: Knex.Transaction, keyId: string, events: KeyEvent[]): Promise<void> {
  for (const event of events) {
    if (event.type === 'KeyCreated') {
      try {
        await trx(TABLE).insert({ name_hash: sha256Hex(event.spec.name), key_id: keyId });
      } catch (err) {
        if (isUniqueViolation(err)) throw new NameTaken(event.spec.name);
        throw err;
      }
    } else if (event.type === 'Destroyed') {
      await releaseName(trx, keyId);
    }
  }
}

/**
 * Frees the destroyed key's name, or hands it to the oldest other live key of that name (keys that
 * shared a name before names were unique), so that the name stays taken while any of them lives.
 */
async function releaseName(trx: Knex.Transaction, keyId: string): Promise<void> {
  const held = await trx(TABLE).where({ key_id: keyId }).first('name_hash');
  if (!held) return;
  await trx(TABLE).where({ name_hash: held.name_hash }).delete();
  const name = (await trx(INDEX).where({ key_id: keyId }).first('name'))?.name as string | undefined;
  if (name === undefined) return;
  // MySQL's = ignores trailing spaces: the exact comparison here has the last word.
  const others = (await trx(INDEX)
    .where({ name })
    .whereNot({ state: 'Destroyed' })
    .whereNot({ key_id: keyId })
    .orderBy([{ column: 'created_at' }, { column: 'key_id' }])
    .select('key_id', 'name')) as Array<{ key_id: string; name: string }>;
  const heir = others.find((row) => row.name === name);
  if (heir) await trx(TABLE).insert({ name_hash: held.name_hash, key_id: heir.key_id });
}

/** The key holding `name`, or undefined. */
export async function nameHolder(knex: Knex, name: string): Promise<string | undefined> {
  return (
    await knex(TABLE)
      .where({ name_hash: sha256Hex(name) })
      .first('key_id')
  )?.key_id;
}

/**
 * Gives every live indexed key without a name row its name, oldest first, a page at a time: on the
 * upgrade that makes names unique (after the key index is reconciled) and at each start, for keys an
 * older node created during a rolling upgrade. A name already held stays with its holder: the later
 * keys of that name are the duplicates `duplicateNames` reports.
 */
export async function reconcileKeyNames(knex: Knex, page = 1000): Promise<void> {
  let after: { created_at: string; key_id: string } | undefined;
  for (;;) {
    const q = knex(`${INDEX} as i`)
      .whereNot('i.state', 'Destroyed')
      .whereNotExists(
        knex(TABLE)
          .select(knex.raw('1'))
          .whereRaw('?? = ??', [`${TABLE}.key_id`, 'i.key_id']),
      );
    if (after) {
      const { created_at: at, key_id: id } = after;
      q.andWhere((b) =>
        b.where('i.created_at', '>', at).orWhere((c) => c.where('i.created_at', at).andWhere('i.key_id', '>', id)),
      );
    }
    const rows = (await q
      .orderBy([{ column: 'i.created_at' }, { column: 'i.key_id' }])
      .limit(page)
      .select('i.key_id', 'i.name', 'i.created_at')) as Array<{ key_id: string; name: string; created_at: string }>;
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!;
    // Another node starting at the same moment may claim the same names: a held name stays with its holder.
    await knex(TABLE)
      .insert(rows.map((r) => ({ name_hash: sha256Hex(r.name), key_id: r.key_id })))
      .onConflict('name_hash')
      .ignore();
  }
}

/** Up to `limit` names that more than one live key holds, with those keys (oldest first). */
export async function duplicateNames(knex: Knex, limit: number): Promise<Array<{ name: string; keyIds: string[] }>> {
  const names = (
    (await knex(INDEX)
      .whereNot({ state: 'Destroyed' })
      .groupBy('name')
      .havingRaw('count(*) > 1')
      .limit(limit)
      .select('name')) as Array<{ name: string }>
  ).map((r) => r.name);
  if (names.length === 0) return [];
  const rows = (await knex(INDEX)
    .whereIn('name', names)
    .whereNot({ state: 'Destroyed' })
    .orderBy([{ column: 'created_at' }, { column: 'key_id' }])
    .select('name', 'key_id')) as Array<{ name: string; key_id: string }>;
  const found = new Map<string, string[]>();
  for (const row of rows) found.set(row.name, [...(found.get(row.name) ?? []), row.key_id]);
  // MySQL groups names that differ only in trailing spaces: only exact duplicates are reported.
  return [...found].filter(([, ids]) => ids.length > 1).map(([name, keyIds]) => ({ name, keyIds }));
}
