import type { Knex } from 'knex';
import {
  type AccessKeyRecord,
  type AccessKeyStore,
  AccessKeyIdTaken,
  AccessKeyLimitReached,
  type AuditRecord,
  type Principal,
} from '../../../kernel/index.ts';
import { isUniqueViolation } from '../../sql-support/unique-violation.ts';
import { sha256Hex } from './knex-key-index.ts';

/**
 * svc_access_keys: one row per access key, its id the primary key, the secret only as the root of trust
 * sealed it. A principal's keys are found by the SHA-256 of its subject, a fixed-width indexable column
 * compared exactly (subjects are callers' text, which MySQL's collations would fold). svc_access_key_holders
 * holds one row per principal that created keys, which a create writes first and so locks: the count of
 * the principal's keys and the insert are one step on every node, as import tokens' holders are.
 */
const TABLE = 'svc_access_keys';
const HOLDERS = 'svc_access_key_holders';

interface AccessKeyRow {
  access_key_id: string;
  principal: string;
  kek_id: string;
  sealed_secret: Buffer | Uint8Array;
  created_at: string;
  created_by: string;
}

export async function createAccessKeys(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  await knex.schema.createTable(TABLE, (t) => {
    if (mysql) {
      t.charset('utf8mb4');
      t.collate('utf8mb4_bin');
    }
    t.string('access_key_id', 20).notNullable().primary();
    t.string('subject_hash', 64).notNullable();
    t.string('principal_kind', 16).notNullable();
    // The principal's snapshot (kind, subject, groups) as JSON: read back as it was stored.
    t.text('principal').notNullable();
    t.string('kek_id', 256).notNullable();
    t.binary('sealed_secret').notNullable();
    t.string('created_at', 32).notNullable();
    t.text('created_by').notNullable();
    t.index(['subject_hash', 'access_key_id'], 'svc_access_keys_subject');
  });
  await knex.schema.createTable(HOLDERS, (t) => {
    if (mysql) t.charset('utf8mb4');
    t.string('subject_hash', 64).notNullable();
    t.string('principal_kind', 16).notNullable();
    // Written by every create (what takes the row's lock); never read.
    t.string('touched_at', 32).notNullable();
    t.primary(['subject_hash', 'principal_kind']);
  });
}

type Run = <T>(work: (db: Knex) => Promise<T>) => Promise<T>;

/** How often a create the database rolled back to let a concurrent one through (a deadlock) is tried again. */
const ATTEMPTS = 3;

/** A MySQL deadlock or a PostgreSQL serialization failure: nothing was written, and trying again is safe. */
function isLostRace(err: unknown): boolean {
  const e = err as { code?: string; errno?: number };
  return e.code === 'ER_LOCK_DEADLOCK' || e.errno === 1213 || e.code === '40P01' || e.code === '40001';
}

async function outbox(trx: Knex.Transaction, audit: AuditRecord | undefined): Promise<void> {
  if (audit)
    await trx('svc_audit_outbox').insert({
      id: audit.id,
      occurred_at: audit.occurredAt,
      record: JSON.stringify(audit),
    });
}

const recordOf = (row: AccessKeyRow): AccessKeyRecord => ({
  accessKeyId: row.access_key_id,
  principal: JSON.parse(row.principal) as Principal,
  sealedSecret: { kekId: row.kek_id, blob: Buffer.from(row.sealed_secret) },
  createdAt: row.created_at,
  createdBy: row.created_by,
});

const COLUMNS = ['access_key_id', 'principal', 'kek_id', 'sealed_secret', 'created_at', 'created_by'];

/** The access keys in the journal's database; nothing is cached, so every node sees every change at once. */
export class KnexAccessKeys implements AccessKeyStore {
  constructor(private readonly run: Run) {}

  async create(
    record: AccessKeyRecord,
    options: { maxPerPrincipal?: number; audit?: AuditRecord } = {},
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.createOnce(record, options);
      } catch (err) {
        if (!isLostRace(err) || attempt >= ATTEMPTS) throw err;
      }
    }
  }

  private async createOnce(
    record: AccessKeyRecord,
    options: { maxPerPrincipal?: number; audit?: AuditRecord },
  ): Promise<void> {
    const holder = { subject_hash: sha256Hex(record.principal.subject), principal_kind: record.principal.kind };
    try {
      await this.run((db) =>
        db.transaction(async (trx) => {
          if (options.maxPerPrincipal !== undefined) {
            // The holder's row first: a concurrent create for this principal on any node waits here, then
            // counts this one's key. The count is the transaction's first read (MySQL's snapshot follows the lock).
            await trx(HOLDERS)
              .insert({ ...holder, touched_at: record.createdAt })
              .onConflict(['subject_hash', 'principal_kind'])
              .merge(['touched_at']);
            const row = await trx(TABLE).where(holder).count({ n: '*' }).first();
            if (Number((row as { n: number | string } | undefined)?.n ?? 0) >= options.maxPerPrincipal)
              throw new AccessKeyLimitReached(options.maxPerPrincipal);
          }
          await trx(TABLE).insert({
            access_key_id: record.accessKeyId,
            ...holder,
            principal: JSON.stringify(record.principal),
            kek_id: record.sealedSecret.kekId,
            sealed_secret: record.sealedSecret.blob,
            created_at: record.createdAt,
            created_by: record.createdBy,
          });
          await outbox(trx, options.audit);
        }),
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw new AccessKeyIdTaken(record.accessKeyId);
      throw err;
    }
  }

  async get(accessKeyId: string): Promise<AccessKeyRecord | undefined> {
    const row = (await this.run((db) => db(TABLE).where({ access_key_id: accessKeyId }).select(COLUMNS).first())) as
      | AccessKeyRow
      | undefined;
    return row ? recordOf(row) : undefined;
  }

  async list(filter: { principal?: string; limit: number; after?: string }): Promise<AccessKeyRecord[]> {
    if (filter.limit <= 0) return [];
    const rows = await this.run((db) => {
      const q = db(TABLE).orderBy('access_key_id', 'asc').limit(filter.limit);
      if (filter.principal !== undefined) q.where({ subject_hash: sha256Hex(filter.principal) });
      if (filter.after !== undefined) q.where('access_key_id', '>', filter.after);
      return q.select(COLUMNS);
    });
    return (rows as AccessKeyRow[]).map(recordOf);
  }

  remove(accessKeyId: string, audit?: AuditRecord): Promise<boolean> {
    return this.run((db) =>
      db.transaction(async (trx) => {
        if (Number(await trx(TABLE).where({ access_key_id: accessKeyId }).delete()) === 0) return false;
        await outbox(trx, audit);
        return true;
      }),
    );
  }
}
