import type { AuditRecord, KeyEvent, StoredEvent } from '../model/index.ts';
import type { Lifecycle } from './lifecycle.ts';
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
 * - material is stored already wrapped by the root of trust; the journal never sees plain material.
 * - `eraseMaterial` removes every version of a key's material for good and is idempotent.
 */
export interface KeyJournal extends Lifecycle {
  /**
   * True when several service nodes may write this journal: the key service then re-checks a key's last
   * sequence number before each use, so a change made on another node is seen before the next use.
   */
  readonly shared?: boolean;
  /** The highest sequence number written for a key (0 for none); cheap, one index lookup. */
  lastSeq(keyId: string): Promise<number>;
  append(keyId: string, expectedSeq: number, events: KeyEvent[], audit?: AuditRecord): Promise<void>;
  pendingAudit(before: string, limit: number): Promise<AuditRecord[]>;
  ackAudit(ids: string[]): Promise<void>;
  load(keyId: string): Promise<StoredEvent[]>;
  /** Every key id, oldest first; background work (time-based rotation) walks it at start. */
  keyIds(): Promise<string[]>;
  putMaterial(keyId: string, materialId: string, wrapped: Buffer): Promise<void>;
  getMaterial(keyId: string, materialId: string): Promise<Buffer | undefined>;
  eraseMaterial(keyId: string): Promise<void>;
}

export class JournalConflict extends Error {
  constructor(keyId: string, seq: number) {
    super(`journal: sequence ${seq} of key ${keyId} was already written by another writer`);
    this.name = 'JournalConflict';
  }
}

export const journalPort = createPortRef<KeyJournal>('journal');
