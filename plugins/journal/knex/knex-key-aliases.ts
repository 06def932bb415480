import type { Knex } from 'knex';
import { AliasTaken, type AuditRecord, type KeyAlias, type KeyAliases } from '../../../kernel/index.ts';
import { isUniqueViolation } from '../../sql-support/unique-violation.ts';

/**
 * svc_key_aliases: one row per alias, its name the primary key, so that of two writers creating one
 * alias on any nodes the second insert fails. Alias names are ASCII letters, digits and `/_-`, compared
 * exactly (binary collation on MySQL, where the default would fold case).
 */
const TABLE = 'svc_key_aliases';

interface AliasRow {
  name: string;
  key_id: string;
  created_at: string;
}

const aliasOf = (row: AliasRow): KeyAlias => ({ name: row.name, keyId: row.key_id, createdAt: row.created_at });

export async function createKeyAliases(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  await knex.schema.createTable(TABLE, (t) => {
    if (mysql) {
      t.charset('utf8mb4');
      t.collate('utf8mb4_bin');
    }
    t.string('name', 256).notNullable().primary();
    t.string('key_id', 36).notNullable().index('svc_key_aliases_key');
    t.string('created_at', 32).notNullable();
  });
}

/** Inside a Destroyed append's transaction: the destroyed key loses its aliases. */
export async function dropKeyAliases(trx: Knex.Transaction, keyId: string): Promise<void> {
  await trx(TABLE).where({ key_id: keyId }).delete();
}

type Run = <T>(work: (db: Knex) => Promise<T>) => Promise<T>;

async function outbox(trx: Knex.Transaction, audit: AuditRecord | undefined): Promise<void> {
  if (audit)
    await trx('svc_audit_outbox').insert({
      id: audit.id,
      occurred_at: audit.occurredAt,
      record: JSON.stringify(audit),
    });
}

/** The aliases in the journal's database; every read goes to the database, so every node sees every change. */
export class KnexKeyAliases implements KeyAliases {
  constructor(private readonly run: Run) {}

  async resolve(name: string): Promise<string | undefined> {
    const row = await this.run((db) => db<AliasRow>(TABLE).where({ name }).first('key_id'));
    return row?.key_id;
  }

  async create(alias: KeyAlias, audit?: AuditRecord): Promise<void> {
    try {
      await this.run((db) =>
        db.transaction(async (trx) => {
          await trx(TABLE).insert({ name: alias.name, key_id: alias.keyId, created_at: alias.createdAt });
          await outbox(trx, audit);
        }),
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw new AliasTaken(alias.name);
      throw err;
    }
  }

  move(name: string, fromKeyId: string, toKeyId: string, audit?: AuditRecord): Promise<boolean> {
    return this.change(audit, (trx) => trx(TABLE).where({ name, key_id: fromKeyId }).update({ key_id: toKeyId }));
  }

  remove(name: string, keyId: string, audit?: AuditRecord): Promise<boolean> {
    return this.change(audit, (trx) => trx(TABLE).where({ name, key_id: keyId }).delete());
  }

  /** One conditional write and its audit record, committed together only when the write changed a row. */
  private change(audit: AuditRecord | undefined, write: (trx: Knex.Transaction) => Promise<number>): Promise<boolean> {
    return this.run((db) =>
      db.transaction(async (trx) => {
        if (Number(await write(trx)) === 0) return false;
        await outbox(trx, audit);
        return true;
      }),
    );
  }

  async list(filter: { keyId?: string; after?: string; limit: number }): Promise<KeyAlias[]> {
    const rows = await this.run((db) => {
      const q = db<AliasRow>(TABLE).orderBy('name', 'asc').limit(filter.limit);
      if (filter.keyId !== undefined) q.where({ key_id: filter.keyId });
      if (filter.after !== undefined) q.where('name', '>', filter.after);
      return q.select('name', 'key_id', 'created_at');
    });
    return (rows as AliasRow[]).map(aliasOf);
  }

  async ofKeys(keyIds: string[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    if (keyIds.length === 0) return found;
    const rows = (await this.run((db) =>
      db<AliasRow>(TABLE).whereIn('key_id', keyIds).orderBy('name', 'asc').select('name', 'key_id'),
    )) as AliasRow[];
    for (const row of rows) found.set(row.key_id, [...(found.get(row.key_id) ?? []), row.name]);
    return found;
  }
}
