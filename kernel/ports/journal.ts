import type { AuditRecord, KeyEvent, StoredEvent } from '../model/index.ts';
import type { AccessKeyStore } from './access-keys.ts';
import type { AgentRegistry } from './agent-registry.ts';
import type { KeyAliases } from './key-aliases.ts';
import type { LocatedRows, LocateFilter, LocatePosition } from './key-locate.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { NodeRegistry } from './node-registry.ts';
import type { PolicyStore } from './policy-store.ts';
import type { WrappedKey } from './root-of-trust.ts';
import type { StoredImportToken } from './import-token.ts';

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
 * - Destroy is a delete, then an erase. An `append` whose events include `Destroyed` deletes the key's KWK
 *   and every version's material and records an erasure task for the key, all in the same transaction
 *   as the event; `scheduleErasure` does the same for a key whose material outlived its `Destroyed`
 *   event (a destroy by an older version that stopped part-way). Both are idempotent.
 * - `locate` reads the key index (see the method) with the semantics of `matchesLocate`.
 * - Key names are unique among keys that are not Destroyed: an `append` whose events include a
 *   `KeyCreated` naming a name such a key holds throws `NameTaken` and writes nothing, also when two
 *   writers race on one name (across every node of the storage); a `Destroyed` event frees its key's
 *   name in the same transaction. Keys that shared a name before a journal enforced this keep it
 *   (`duplicateNames` lists them); the name stays taken while any of them lives.
 * - `erasePending` is one attempt to remove every deleted row from the storage's own files, as far as
 *   that storage allows: SQLite overwrites freed cells (secure_delete) and checkpoints and truncates its
 *   WAL, which a reader of the WAL (a backup) prevents until it lets go; the server databases rebuild
 *   the KWK table so no page of it keeps a deleted row, which a lock another session holds, or a
 *   snapshot older than the delete, prevents. It never waits long for a lock (other requests queue
 *   behind a waiting rebuild), removes the tasks it completed, and says why it did not complete the
 *   others; tasks are durable, so a restart resumes them. Copies kept elsewhere (backups, replicas, a
 *   WAL archive) are unreadable once the KEK that wrapped the KWK is rotated out.
 * - Trim is the same delete and erase for some versions of a key that lives on: an `append` given a
 *   `MaterialRekey` replaces the key's KWK with the new one, replaces each kept material row with its
 *   blob sealed under the new KWK, deletes the erased material rows and records an erasure task, all
 *   in the event's transaction (or none of it, on a conflict). Once the erase has scrubbed the old KWK,
 *   copies of the erased rows anywhere are as unreadable as a destroyed key's.
 * - Scheduled destructions: an appended `DestroyScheduled` makes the key due at its `destroyAt`, a later
 *   `DestroyCancelled` or `Destroyed` removes it, in the event's transaction; `dueDestructions` lists the
 *   keys due at a time, so any node finds them, whichever node scheduled them.
 */
export interface KeyJournal extends Lifecycle {
  /**
   * True when several service nodes may write this journal: the key service then re-checks a key's last
   * sequence number before each use, so a change made on another node is seen before the next use.
   */
  readonly shared?: boolean;
  /** The registry of issued agent tokens, kept in the same storage as the keys. */
  readonly agents: AgentRegistry;
  /** The deployment's nodes and their recorded audit chain heads (node-registry.ts), in the same storage. */
  readonly nodes: NodeRegistry;
  /** The versions of the role-based policy's bindings (policy-store.ts), in the same storage. */
  readonly policies: PolicyStore;
  /** The deployment's aliases (key-aliases.ts), in the same storage: a Destroyed append removes its key's. */
  readonly aliases: KeyAliases;
  /** The access keys that sign AWS-style requests (access-keys.ts), in the same storage, their secrets sealed. */
  readonly accessKeys: AccessKeyStore;
  /** The highest sequence number written for a key (0 for none); cheap, one index lookup. */
  lastSeq(keyId: string): Promise<number>;
  /**
   * On a shared journal that can tell it without a query: a number that stays the same only while no key
   * event was committed to the journal by anyone (another node, or this one). While it has not
   * changed since a key's lastSeq was checked, the key cannot have changed, and the check is not repeated.
   * It moves once the journal learns of a commit: SQLite reads it from the file at once; PostgreSQL, where
   * the operator chose notified key changes, hears of it by a notification the database sends at the commit
   * (so a use that begins before it arrives trusts the cache). Undefined (or absent) where no such number
   * exists or it cannot vouch for anything right now (a lost notification connection): every use checks lastSeq.
   */
  changeStamp?(): number | undefined;
  append(
    keyId: string,
    expectedSeq: number,
    events: KeyEvent[],
    audit?: AuditRecord,
    rekey?: MaterialRekey,
  ): Promise<void>;
  pendingAudit(before: string, limit: number): Promise<AuditRecord[]>;
  ackAudit(ids: string[]): Promise<void>;
  load(keyId: string): Promise<StoredEvent[]>;
  /** Every key id, oldest first; background work (time-based rotation) walks it at start. */
  keyIds(): Promise<string[]>;
  /** Connections of the journal's database pool right now, for svc_journal_pool_connections; absent without a pool. */
  poolStats?(): JournalPoolStats | undefined;
  putMaterial(keyId: string, materialId: string, wrapped: Buffer): Promise<void>;
  getMaterial(keyId: string, materialId: string): Promise<Buffer | undefined>;
  /** Deletes the KWK and material of a Destroyed key still holding them, and records its erasure task. */
  scheduleErasure(keyId: string): Promise<void>;
  /** Keys whose erasure task is recorded and not complete, oldest first. */
  pendingErasures(): Promise<string[]>;
  /** One bounded attempt at the physical erase of every pending task (see the contract above). */
  erasePending(): Promise<ErasureAttempt>;
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
  /** Keys whose scheduled destruction is due at `now` (ISO time): destroyAt <= now, oldest first, at most `limit`. */
  dueDestructions(now: string, limit: number): Promise<Array<{ keyId: string; destroyAt: string }>>;
  /**
   * Stores a new import token (import-token.ts) unless its caller (`issuedTo`) already holds `maxLive`
   * unexpired ones at its `createdAt` (false then, nothing stored), and deletes every token expired at
   * `createdAt`, so abandoned tokens do not pile up. The count and the insert are one step across every
   * node of the storage: of concurrent calls for one caller, no more than its free places succeed.
   */
  putImportToken(token: StoredImportToken, maxLive: number): Promise<boolean>;
  /**
   * How many tokens `issuedTo` holds that are unexpired at `now`: a cheap look before the costly work
   * of making a token (putImportToken still decides).
   */
  liveImportTokens(issuedTo: string, now: string): Promise<number>;
  /**
   * Spends an import token: removes and returns the token with this hash when it was issued to
   * `issuedTo` and has not expired at `now`; undefined otherwise (unknown, spent, expired, another
   * caller's: a caller cannot tell which). Atomic across every node of the storage: of concurrent calls
   * with one hash, exactly one gets the token. Expired tokens are deleted on the way.
   */
  takeImportToken(tokenHash: string, issuedTo: string, now: string): Promise<StoredImportToken | undefined>;
  /**
   * Up to `limit` keys of the key index matching `filter`, newest first ((createdAt, id) descending),
   * starting after `after`. The index is kept in the same transaction as `append` (a KeyCreated adds a
   * row, a change of state updates it), so it never disagrees with the events. A journal may read a
   * bounded number of rows per call: when it stops before `limit` matches it answers `scannedTo`, the
   * last row it read, and the caller goes on from there; without `scannedTo`, nothing more matches.
   */
  locate(filter: LocateFilter, after: LocatePosition | undefined, limit: number): Promise<LocatedRows>;
  /**
   * The key that is not Destroyed and holds `name`, or undefined: a cheap look before making material (append still
   * decides).
   */
  nameHolder(name: string): Promise<string | undefined>;
  /** Up to `limit` names held by more than one key that is not Destroyed (written before names were unique). */
  duplicateNames(limit: number): Promise<Array<{ name: string; keyIds: string[] }>>;
}

/**
 * A key's new KWK and the material it keeps, sealed under it, for an append that trims versions: the
 * old KWK and the `erased` material rows are gone with the event, so nothing opens them again.
 */
export interface MaterialRekey {
  kwk: WrappedKey;
  kept: Array<{ materialId: string; wrapped: Buffer }>;
  erased: string[];
}

/** What one erase attempt achieved: the keys now erased, those still pending and, if any, why. */
export interface ErasureAttempt {
  erased: string[];
  pending: string[];
  /** Why the pending keys are not erased yet (no secrets, no connection details): 'a reader holds the WAL' ... */
  reason?: string;
}

export class JournalConflict extends Error {
  constructor(keyId: string, seq: number) {
    super(`journal: sequence ${seq} of key ${keyId} was already written by another writer`);
    this.name = 'JournalConflict';
  }
}

/** A key was to be created with a name that a key which is not Destroyed holds. */
export class NameTaken extends Error {
  constructor(readonly keyName: string) {
    super('journal: the key name is held by another key that is not Destroyed');
    this.name = 'NameTaken';
  }
}

export const journalPort = createPortRef<KeyJournal>('journal');
