import type { Knex } from 'knex';
import {
  type AuditRecord,
  type ErasureAttempt,
  JournalConflict,
  type JournalPoolStats,
  type KeyEvent,
  type LocatedRows,
  type KeyJournal,
  type MaterialRekey,
  type LocateFilter,
  type LocatePosition,
  type StoredEvent,
  type StoredImportToken,
  type WrappedKey,
} from '../../../kernel/index.ts';
import { BatchedLookup } from '../../sql-support/batched-lookup.ts';
import { connectAndMigrate } from '../../sql-support/connect.ts';
import type { ChangeStamp, KnexSettings } from '../../sql-support/knex-settings.ts';
import { isUniqueViolation } from '../../sql-support/unique-violation.ts';
import { unlessUnavailable } from '../../sql-support/unavailable.ts';
import { KnexAccessKeys } from './knex-access-keys.ts';
import { KnexAgentRegistry } from './knex-agent-registry.ts';
import { dropKeyAliases, KnexKeyAliases } from './knex-key-aliases.ts';
import { keepKeyTags } from './knex-key-tags.ts';
import { indexAppended, locateKeys, reconcileKeyIndex, sha256Hex } from './knex-key-index.ts';
import { duplicateNames, keepKeyNames, nameHolder, reconcileKeyNames } from './knex-key-names.ts';
import { KnexNodeRegistry } from './knex-node-registry.ts';
import { KnexPolicyStore } from './knex-policy-store.ts';
import { journalMigrations } from './migrations.ts';
import { scrubStorage } from './storage-scrub.ts';

/**
 * The SQL journal shared by every relational backend: events in svc_key_events with a primary key on
 * (key_id, seq), so two writers of the same key cannot both win; material in svc_key_material.
 * A lost database connection surfaces as 503 ServiceUnavailable; the pool reconnects by itself.
 */
export class KnexJournal implements KeyJournal {
  readonly shared: boolean;
  readonly nodes = new KnexNodeRegistry((work) => this.run(() => work(this.knex())));
  readonly agents: KnexAgentRegistry;
  readonly policies = new KnexPolicyStore((work) => this.run(() => work(this.knex())));
  readonly aliases = new KnexKeyAliases((work) => this.run(() => work(this.knex())));
  readonly accessKeys = new KnexAccessKeys((work) => this.run(() => work(this.knex())));
  private db: Knex | undefined;
  private readonly lastSeqs = new BatchedLookup<number>(async (keyIds) => {
    const rows = await this.run(() =>
      this.knex()('svc_key_events').whereIn('key_id', keyIds).groupBy('key_id').select('key_id').max({ seq: 'seq' }),
    );
    return new Map((rows as Array<{ key_id: string; seq: number | string }>).map((r) => [r.key_id, Number(r.seq)]));
  }, 0);

  private stamp: ChangeStamp | undefined;

  constructor(private readonly settings: KnexSettings) {
    this.shared = settings.shared;
    this.agents = new KnexAgentRegistry((work) => this.run(() => work(this.knex())), settings.shared);
  }

  async start(): Promise<void> {
    this.db = await connectAndMigrate(this.settings, journalMigrations, 'svc_journal_migrations');
    // Keys written before the key index existed (the upgrade that adds it), or by an older node during a
    // rolling upgrade, are not in it yet.
    await this.run(() => reconcileKeyIndex(this.knex()));
    await this.run(() => reconcileKeyNames(this.knex()));
    if (this.shared) this.stamp = await this.settings.changeStamp?.();
  }

  changeStamp(): number | undefined {
    return this.stamp?.read();
  }

  async stop(): Promise<void> {
    this.stamp?.close();
    this.stamp = undefined;
    const db = this.db;
    this.db = undefined;
    await db?.destroy();
  }

  poolStats(): JournalPoolStats | undefined {
    // knex keeps its tarn pool on the client; it exists while the journal is started.
    const pool = (
      this.db?.client as
        | { pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number; max: number } }
        | undefined
    )?.pool;
    if (!pool) return undefined;
    return { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires(), max: pool.max };
  }

  async probe(): Promise<void> {
    await this.run(() => this.knex().raw('select 1'));
  }

  async append(
    keyId: string,
    expectedSeq: number,
    events: KeyEvent[],
    audit?: AuditRecord,
    rekey?: MaterialRekey,
  ): Promise<void> {
    const rows = events.map((event, i) => ({
      key_id: keyId,
      seq: expectedSeq + 1 + i,
      type: event.type,
      payload: JSON.stringify(event),
      occurred_at: event.at,
    }));
    try {
      await this.run(() =>
        this.knex().transaction(async (trx) => {
          await trx('svc_key_events').insert(rows);
          await indexAppended(trx, keyId, events);
          await keepKeyNames(trx, keyId, events);
          await keepKeyTags(trx, keyId, events);
          if (audit)
            await trx('svc_audit_outbox').insert({
              id: audit.id,
              occurred_at: audit.occurredAt,
              record: JSON.stringify(audit),
            });
          if (events.some((e) => e.type === 'Destroyed')) {
            await deleteForErasure(trx, keyId);
            await dropKeyAliases(trx, keyId);
          }
          await keepDestroySchedule(trx, keyId, events);
          if (rekey) await rekeyForErasure(trx, keyId, rekey);
        }),
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw new JournalConflict(keyId, expectedSeq + 1);
      throw err;
    }
  }

  async load(keyId: string): Promise<StoredEvent[]> {
    const rows = await this.run(() =>
      this.knex()('svc_key_events').where({ key_id: keyId }).orderBy('seq', 'asc').select('seq', 'payload'),
    );
    return rows.map((r: { seq: number; payload: string }) => ({
      keyId,
      seq: Number(r.seq),
      event: JSON.parse(r.payload) as KeyEvent,
    }));
  }

  /** Checked before every use of a key on a shared journal, so concurrent checks share one query. */
  lastSeq(keyId: string): Promise<number> {
    return this.lastSeqs.get(keyId);
  }

  async pendingAudit(before: string, limit: number): Promise<AuditRecord[]> {
    const rows = await this.run(() =>
      this.knex()('svc_audit_outbox')
        .where('occurred_at', '<', before)
        .orderBy('occurred_at', 'asc')
        .limit(limit)
        .select('record'),
    );
    return rows.map((r: { record: string }) => JSON.parse(r.record) as AuditRecord);
  }

  async ackAudit(ids: string[]): Promise<void> {
    if (ids.length) await this.run(() => this.knex()('svc_audit_outbox').whereIn('id', ids).delete());
  }

  async keyIds(): Promise<string[]> {
    const rows = await this.run(() =>
      this.knex()('svc_key_events').where({ seq: 1 }).orderBy('occurred_at', 'asc').select('key_id'),
    );
    return rows.map((r: { key_id: string }) => r.key_id);
  }

  async putMaterial(keyId: string, materialId: string, wrapped: Buffer): Promise<void> {
    await this.run(() => this.knex()('svc_key_material').insert({ key_id: keyId, material_id: materialId, wrapped }));
  }

  async getMaterial(keyId: string, materialId: string): Promise<Buffer | undefined> {
    const row = await this.run(() =>
      this.knex()('svc_key_material').where({ key_id: keyId, material_id: materialId }).first('wrapped'),
    );
    return row ? Buffer.from(row.wrapped) : undefined;
  }

  async scheduleErasure(keyId: string): Promise<void> {
    await this.run(() => this.knex().transaction((trx) => deleteForErasure(trx, keyId)));
  }

  async pendingErasures(): Promise<string[]> {
    const rows = await this.run(() => this.knex()('svc_erasure_tasks').orderBy('recorded_at', 'asc').select('key_id'));
    return rows.map((r: { key_id: string }) => r.key_id);
  }

  /**
   * The tasks read first were all committed (with their deletes) before the scrub starts, so a scrub
   * that completes covers them; a task committed meanwhile waits for the next attempt, and so does a
   * task recorded again meanwhile (another delete of the same key): only tasks as they were read are
   * removed. On PostgreSQL a task's xmin is the transaction of its delete, which the scrub checks.
   */
  async erasePending(): Promise<ErasureAttempt> {
    const postgres = this.knex().client.config.client === 'pg';
    const tasks = (await this.run(() =>
      this.knex()('svc_erasure_tasks').select(
        'key_id',
        'recorded_at',
        ...(postgres ? [this.knex().raw('xmin::text as xid')] : []),
      ),
    )) as ErasureTaskRow[];
    const pending = tasks.map((r) => r.key_id);
    if (pending.length === 0) return { erased: [], pending: [] };
    const outcome = await this.run(() =>
      scrubStorage(
        this.knex(),
        tasks.map((r) => r.xid ?? ''),
      ),
    );
    if (!outcome.complete) return { erased: [], pending, ...(outcome.reason ? { reason: outcome.reason } : {}) };
    const still: string[] = [];
    for (let i = 0; i < tasks.length; i += 200) {
      const done = tasks.slice(i, i + 200);
      await this.run(() =>
        this.knex().transaction(async (trx) => {
          for (const task of done) {
            const removed = await trx('svc_erasure_tasks')
              .where({ key_id: task.key_id, recorded_at: task.recorded_at })
              .modify((q) => (task.xid === undefined ? q : q.whereRaw('xmin::text = ?', [task.xid])))
              .delete();
            // Not removed: recorded again since (still pending), or already done by another node's attempt.
            if (removed === 0 && (await trx('svc_erasure_tasks').where({ key_id: task.key_id }).first('key_id')))
              still.push(task.key_id);
          }
        }),
      );
    }
    const erased = pending.filter((k) => !still.includes(k));
    return {
      erased,
      pending: still,
      ...(still.length ? { reason: 'the key was deleted again while the erase ran; retried' } : {}),
    };
  }

  async hasMaterial(keyId: string): Promise<boolean> {
    const [kwk, material] = await Promise.all([
      this.run(() => this.knex()('svc_key_kwk').where({ key_id: keyId }).first('key_id')),
      this.run(() => this.knex()('svc_key_material').where({ key_id: keyId }).first('key_id')),
    ]);
    return kwk !== undefined || material !== undefined;
  }

  async putKwk(keyId: string, wrapped: WrappedKey): Promise<void> {
    await this.run(() =>
      this.knex()('svc_key_kwk').insert({ key_id: keyId, kek_id: wrapped.kekId, wrapped: wrapped.blob }),
    );
  }

  async getKwk(keyId: string): Promise<WrappedKey | undefined> {
    const row = await this.run(() => this.knex()('svc_key_kwk').where({ key_id: keyId }).first('kek_id', 'wrapped'));
    return row ? { kekId: row.kek_id, blob: Buffer.from(row.wrapped) } : undefined;
  }

  async kwksNotUnder(kekId: string, limit: number): Promise<Array<{ keyId: string; wrapped: WrappedKey }>> {
    const rows = await this.run(() =>
      this.knex()('svc_key_kwk')
        .whereNot({ kek_id: kekId })
        .orderBy('key_id')
        .limit(limit)
        .select('key_id', 'kek_id', 'wrapped'),
    );
    return rows.map((r: { key_id: string; kek_id: string; wrapped: Buffer }) => ({
      keyId: r.key_id,
      wrapped: { kekId: r.kek_id, blob: Buffer.from(r.wrapped) },
    }));
  }

  async replaceKwk(keyId: string, from: WrappedKey, to: WrappedKey): Promise<boolean> {
    const changed = await this.run(() =>
      this.knex()('svc_key_kwk')
        .where({ key_id: keyId, kek_id: from.kekId, wrapped: from.blob })
        .update({ kek_id: to.kekId, wrapped: to.blob }),
    );
    return Number(changed) === 1;
  }

  async rewrapMaterial(keyId: string, materialId: string, wrapped: Buffer): Promise<void> {
    await this.run(() =>
      this.knex()('svc_key_material').where({ key_id: keyId, material_id: materialId }).update({ wrapped }),
    );
  }

  async materialIds(keyId: string): Promise<string[]> {
    const rows = await this.run(() => this.knex()('svc_key_material').where({ key_id: keyId }).select('material_id'));
    return rows.map((r: { material_id: string }) => r.material_id);
  }

  async dueDestructions(now: string, limit: number): Promise<Array<{ keyId: string; destroyAt: string }>> {
    const rows = await this.run(() =>
      this.knex()('svc_destroy_schedule')
        .where('destroy_at', '<=', now)
        .orderBy('destroy_at', 'asc')
        .limit(limit)
        .select('key_id', 'destroy_at'),
    );
    return rows.map((r: { key_id: string; destroy_at: string }) => ({ keyId: r.key_id, destroyAt: r.destroy_at }));
  }

  /**
   * Serialised per caller: the transaction first writes the caller's row of svc_import_token_holders,
   * which locks it until the commit (PostgreSQL, MySQL; on SQLite the write takes the database's one
   * write lock), so a concurrent issue for the same caller on any node waits there, then counts this
   * one's token. The count is the transaction's first read, so MySQL's snapshot is taken after the lock.
   */
  async putImportToken(token: StoredImportToken, maxLive: number): Promise<boolean> {
    await this.pruneImportTokens(token.createdAt, true);
    const holder = sha256Hex(token.issuedTo);
    return this.run(() =>
      this.knex().transaction(async (trx) => {
        await trx('svc_import_token_holders')
          .insert({ issued_to_hash: holder, held_until: token.expiresAt })
          .onConflict('issued_to_hash')
          .merge(['held_until']);
        if ((await countLive(trx, holder, token.createdAt)) >= maxLive) return false;
        await trx('svc_import_tokens').insert({
          token_hash: token.tokenHash,
          import_id: token.importId,
          issued_to: token.issuedTo,
          issued_to_hash: holder,
          key_type: token.keyType,
          created_at: token.createdAt,
          expires_at: token.expiresAt,
          kek_id: token.sealingKey.kekId,
          sealing_key: token.sealingKey.blob,
          private_key: token.privateKey,
        });
        return true;
      }),
    );
  }

  async liveImportTokens(issuedTo: string, now: string): Promise<number> {
    return this.run(() => countLive(this.knex(), sha256Hex(issuedTo), now));
  }

  /**
   * The delete is the spend: rows never change, so the row read first is the one deleted, and only the
   * statement that deleted it (count 1) returns it; a concurrent spend on any node deletes nothing.
   */
  async takeImportToken(tokenHash: string, issuedTo: string, now: string): Promise<StoredImportToken | undefined> {
    const live = () =>
      this.knex()('svc_import_tokens')
        .where({ token_hash: tokenHash, issued_to_hash: sha256Hex(issuedTo) })
        .where('expires_at', '>', now);
    const row = await this.run(() => live().first());
    const removed = row ? Number(await this.run(() => live().delete())) : 0;
    await this.pruneImportTokens(now, false);
    if (removed !== 1) return undefined;
    return {
      tokenHash: row.token_hash,
      importId: row.import_id,
      issuedTo: row.issued_to,
      keyType: row.key_type,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      sealingKey: { kekId: row.kek_id, blob: Buffer.from(row.sealing_key) },
      privateKey: Buffer.from(row.private_key),
    };
  }

  /** Deletes the tokens expired at `now` and, when issuing (the only time rows are added), the holders of none. */
  private async pruneImportTokens(now: string, holders: boolean): Promise<void> {
    await this.run(() => this.knex()('svc_import_tokens').where('expires_at', '<=', now).delete());
    if (holders) await this.run(() => this.knex()('svc_import_token_holders').where('held_until', '<=', now).delete());
  }

  async locate(filter: LocateFilter, after: LocatePosition | undefined, limit: number): Promise<LocatedRows> {
    return this.run(() => locateKeys(this.knex(), filter, after, limit));
  }

  nameHolder(name: string): Promise<string | undefined> {
    return this.run(() => nameHolder(this.knex(), name));
  }

  duplicateNames(limit: number): Promise<Array<{ name: string; keyIds: string[] }>> {
    return this.run(() => duplicateNames(this.knex(), limit));
  }

  private run<T>(work: () => Promise<T>): Promise<T> {
    return unlessUnavailable(`the journal database (${this.settings.describe})`, work);
  }

  private knex(): Knex {
    if (!this.db) throw new Error('journal is not started');
    return this.db;
  }
}

/** The tokens held by the caller whose subject hashes to `holder` that are unexpired at `now`. */
async function countLive(knex: Knex | Knex.Transaction, holder: string, now: string): Promise<number> {
  const row = await knex('svc_import_tokens')
    .where({ issued_to_hash: holder })
    .where('expires_at', '>', now)
    .count({ n: '*' })
    .first();
  return Number((row as { n: number | string } | undefined)?.n ?? 0);
}

/** An erasure task as read for an attempt; `xid` (PostgreSQL) is the transaction that recorded it, with its delete. */
interface ErasureTaskRow {
  key_id: string;
  recorded_at: string;
  xid?: string;
}

/** Deletes a destroyed key's KWK and material and records its erasure task, inside the caller's transaction. */
async function deleteForErasure(trx: Knex.Transaction, keyId: string): Promise<void> {
  await trx('svc_key_material').where({ key_id: keyId }).delete();
  await trx('svc_key_kwk').where({ key_id: keyId }).delete();
  // Recorded again when there is one already: the task then names this delete (its time, and on PostgreSQL its
  // transaction).
  await trx('svc_erasure_tasks')
    .insert({ key_id: keyId, recorded_at: new Date().toISOString() })
    .onConflict('key_id')
    .merge(['recorded_at']);
}

/**
 * The key's row in svc_destroy_schedule follows its events: written by DestroyScheduled, removed by DestroyCancelled or
 * Destroyed.
 */
async function keepDestroySchedule(trx: Knex.Transaction, keyId: string, events: KeyEvent[]): Promise<void> {
  for (const event of events) {
    if (event.type === 'DestroyScheduled')
      await trx('svc_destroy_schedule')
        .insert({ key_id: keyId, destroy_at: event.destroyAt })
        .onConflict('key_id')
        .merge(['destroy_at']);
    else if (event.type === 'DestroyCancelled' || event.type === 'Destroyed')
      await trx('svc_destroy_schedule').where({ key_id: keyId }).delete();
  }
}

/**
 * A trim inside the caller's transaction: the key's new KWK and kept material replace the old, the
 * erased material is deleted, and the erasure task scrubs the old KWK (and the erased rows) from the files.
 */
async function rekeyForErasure(trx: Knex.Transaction, keyId: string, rekey: MaterialRekey): Promise<void> {
  await trx('svc_key_kwk').where({ key_id: keyId }).update({ kek_id: rekey.kwk.kekId, wrapped: rekey.kwk.blob });
  for (const kept of rekey.kept)
    await trx('svc_key_material')
      .where({ key_id: keyId, material_id: kept.materialId })
      .update({ wrapped: kept.wrapped });
  if (rekey.erased.length)
    await trx('svc_key_material').where({ key_id: keyId }).whereIn('material_id', rekey.erased).delete();
  await trx('svc_erasure_tasks')
    .insert({ key_id: keyId, recorded_at: new Date().toISOString() })
    .onConflict('key_id')
    .merge(['recorded_at']);
}
