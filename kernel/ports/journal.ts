import type { AuditRecord, KeyEvent, StoredEvent } from '../model/index.ts';
import type { AgentRegistry } from './agent-registry.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { WrappedKey } from './root-of-trust.ts';

/** A journal's database connection pool at one moment. */
export interface JournalPoolStats {
  used: number;
  free: number;
  /** Callers waiting for a connection. */
  pending: number;
  max: number;
}
import { createPortRef } from './port-ref.ts';

/**
 * Where key state lives: an append-only event log per key, plus a material store kept apart from the
 * events so that destroy can erase material while the events stay as a tombstone.
 *
 * Contract (test/contracts/journal.ts runs it on every backend):
 * - `append` writes events with seq = expectedSeq + 1, +2, ... atomically, or none of them. When
 *   another writer already used one of those numbers it throws a `JournalConflict` and writes nothing.
 *   An `audit` record given with the events is written in the same transaction into the audit outbox:
 *   the change and its record exist together or not at all.
 * - `pendingAudit` lists outbox records written before `before` (ISO time), oldest first; `ackAudit`
 *   removes records the primary audit sink has stored (idempotent).
 * - `load` returns a key's events ordered by seq (an empty list for an unknown key).
 * - material is stored already wrapped (by the key's KWK); the KWK is stored wrapped by the root of
 *   trust; the journal never sees plain key material.
 * - `eraseMaterial` removes the key's KWK and every version's material and is idempotent. It erases them
 *   from the storage it controls as far as that storage allows: SQLite overwrites freed pages
 *   (secure_delete) and truncates its WAL; the server databases rebuild the KWK table so no page of it
 *   keeps the row. Copies kept elsewhere (backups, replicas, a WAL archive) are unreadable once the KEK
 *   that wrapped the KWK is rotated out.
 */
export interface KeyJournal extends Lifecycle {
  /**
   * True when several service nodes may write this journal: the key service then re-checks a key's last
   * sequence number before each use, so a change made on another node is seen before the next use.
   */
  readonly shared?: boolean;
  /** The registry of issued agent tokens, kept in the same storage as the keys. */
  readonly agents: AgentRegistry;
  /** The highest sequence number written for a key (0 for none); cheap, one index lookup. */
  lastSeq(keyId: string): Promise<number>;
  append(keyId: string, expectedSeq: number, events: KeyEvent[], audit?: AuditRecord): Promise<void>;
  pendingAudit(before: string, limit: number): Promise<AuditRecord[]>;
  ackAudit(ids: string[]): Promise<void>;
  load(keyId: string): Promise<StoredEvent[]>;
  /** Every key id, oldest first; background work (time-based rotation) walks it at start. */
  keyIds(): Promise<string[]>;
  /** Connections of the journal's database pool right now, for svc_journal_pool_connections; absent without a pool. */
  poolStats?(): JournalPoolStats | undefined;
  putMaterial(keyId: string, materialId: string, wrapped: Buffer): Promise<void>;
  getMaterial(keyId: string, materialId: string): Promise<Buffer | undefined>;
  eraseMaterial(keyId: string): Promise<void>;
  /** True while any material or the KWK of the key is stored (a destroy that failed part-way). */
  hasMaterial(keyId: string): Promise<boolean>;
  putKwk(keyId: string, wrapped: WrappedKey): Promise<void>;
  getKwk(keyId: string): Promise<WrappedKey | undefined>;
  /** Up to `limit` KWKs wrapped by a KEK other than `kekId` (what a rewrap has left to do). */
  kwksNotUnder(kekId: string, limit: number): Promise<Array<{ keyId: string; wrapped: WrappedKey }>>;
  /** Replaces a KWK's wrapping if it is still `from`; false when another writer changed it first. */
  replaceKwk(keyId: string, from: WrappedKey, to: WrappedKey): Promise<boolean>;
  /** The material ids stored for a key (material of the 0.1 format is moved under a KWK). */
  materialIds(keyId: string): Promise<string[]>;
  /** Replaces one stored material blob; only for moving 0.1 material under its key's KWK. */
  rewrapMaterial(keyId: string, materialId: string, wrapped: Buffer): Promise<void>;
}

export class JournalConflict extends Error {
  constructor(keyId: string, seq: number) {
    super(`journal: sequence ${seq} of key ${keyId} was already written by another writer`);
    this.name = 'JournalConflict';
  }
}

export const journalPort = createPortRef<KeyJournal>('journal');
