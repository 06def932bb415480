import { randomUUID } from 'node:crypto';
import {
  type AuditFacts,
  type AuditRecord,
  isUuid,
  JournalConflict,
  type KeyEvent,
  NameTaken,
  type KeyJournal,
  type KeySpec,
  type ManagedKey,
  type MaterialRekey,
  type ResourceFacts,
  SvcError,
  type TraceScope,
  UNTRACED,
} from '../../kernel/index.ts';
import { generateMaterial, parseMaterial, type ParsedMaterial } from './crypto/material.ts';
import { applyEvent, foldEvents, requireNotTrimmed } from './key-state.ts';
import type { KeyWrapping, KwkCacheSettings } from './key-wrapping.ts';
import type { NewKeySpec } from './spec.ts';
import { LRUCache } from 'lru-cache';

// Several nodes writing one key take turns; a jittered pause between attempts lets one of them win.
const MAX_CONFLICT_RETRIES = 50;
const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(20, 1 + attempt * 2)));

/**
 * Who makes a change, the trace it belongs to, and (from the operation pipeline) the audit record to
 * write in the same journal transaction as the change, built from the facts the change decided.
 */
export interface ChangeScope {
  by: string;
  /** The owner a created key gets, and the tenant of a Service creator. */
  owner?: string;
  tenant?: string;
  trace: TraceScope;
  audit?: { successRecord(facts: AuditFacts): AuditRecord; journaled(record: AuditRecord): void };
}

/**
 * Key state and material for the key services: folds journal events into ManagedKey (cached), runs
 * every change of one key one at a time, retries on a journal conflict by re-reading and re-deciding,
 * and keeps parsed key objects per version (re-parsing costs 10-15x the signature itself).
 */
export class KeyStore {
  private readonly keys = new Map<string, ManagedKey>();
  /**
   * The journal's change stamp when a cached key was last confirmed current, and which cached state that was
   * (shared journals only): a slower load that lands after a newer state was confirmed is not covered by it.
   */
  private readonly confirmedAt = new Map<string, { stamp: number; key: ManagedKey }>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Parsed material per material id, bounded in entries and time like the KWKs (crypto.cache*). */
  private readonly material: LRUCache<string, ParsedMaterial>;

  constructor(
    private readonly journal: KeyJournal,
    private readonly wrapping: KeyWrapping,
    cache: KwkCacheSettings,
  ) {
    this.material = new LRUCache({ max: Math.max(1, cache.maxEntries), ttl: Math.max(1, cache.ttlSeconds) * 1000 });
  }

  /**
   * Whether a cached key is still the journal's latest on a shared journal: one lastSeq lookup, skipped
   * while the journal's change stamp is the one read before the last lookup that confirmed this key
   * (nothing was committed anywhere since, so nothing of the key changed).
   */
  private async stillCurrent(id: string, cached: ManagedKey, trace: TraceScope): Promise<boolean> {
    const stamp = this.journal.changeStamp?.();
    const confirmed = this.confirmedAt.get(id);
    if (stamp !== undefined && confirmed?.stamp === stamp && confirmed.key === cached) return true;
    if ((await trace.child('journal.lastSeq', () => this.journal.lastSeq(id))) !== cached.seq) return false;
    if (stamp !== undefined) this.confirmedAt.set(id, { stamp, key: cached });
    return true;
  }

  /**
   * The key's current state; any id that is not a known UUID is KeyNotFound. On a journal shared by
   * several nodes the cached state is trusted only after one index lookup shows no newer event, so a
   * compromise, revoke, rotation or destroy made on another node is seen before this node's next use.
   */
  async get(id: string, trace: TraceScope = UNTRACED): Promise<ManagedKey> {
    const cached = this.keys.get(id);
    if (cached && (!this.journal.shared || (await this.stillCurrent(id, cached, trace)))) return cached;
    // The id is never echoed: it may be attacker-sized or hold control characters.
    if (!isUuid(id)) throw new SvcError('KeyNotFound', 'no key with that id (key ids are UUIDs)');
    const key = foldEvents(await trace.child('journal.load', () => this.journal.load(id)));
    if (!key) throw new SvcError('KeyNotFound', `no key with id ${id}`);
    // A load that began earlier and ended later than another never replaces the newer state that one cached.
    const newer = this.keys.get(id);
    if (newer && newer.seq > key.seq) return newer;
    // Not only when this node had the key cached: a lost append race drops the cache entry, not the material.
    if (key.state !== 'Active') this.forgetMaterial(key);
    // A trim (here or on another node) erased versions and gave the key a new KWK: nothing of the old
    // one, or of the trimmed versions' material, stays in this node's memory.
    if (key.minVersion !== cached?.minVersion) this.forgetMaterial(key);
    this.keys.set(id, key);
    return key;
  }

  /**
   * What authorization may know of a key: id, name, owner, tenant. They never change after creation,
   * so a cached key answers without asking the journal; undefined for an unknown or malformed id.
   */
  async facts(id: unknown): Promise<ResourceFacts | undefined> {
    if (typeof id !== 'string' || !isUuid(id)) return undefined;
    let key = this.keys.get(id);
    if (!key)
      key = await this.get(id).catch((err) =>
        err instanceof SvcError && err.code === 'KeyNotFound' ? undefined : Promise.reject(err),
      );
    return key && { id: key.id, name: key.spec.name, owner: key.owner, ...(key.tenant ? { tenant: key.tenant } : {}) };
  }

  /** The key as this node last read or changed it, without asking the journal; undefined when not cached. */
  latest(id: string): ManagedKey | undefined {
    return this.keys.get(id);
  }

  cached(): ManagedKey[] {
    return [...this.keys.values()];
  }

  /**
   * Creates the key's first version: material is stored before the event, so no event lacks material;
   * the event and its audit record are one journal transaction.
   */
  async create(
    newSpec: NewKeySpec,
    scope: ChangeScope,
    at: string,
    facts: (id: string) => AuditFacts,
    options: { imported?: Buffer; activate?: boolean; awaitMaterial?: boolean } = {},
  ): Promise<ManagedKey> {
    const { imported, awaitMaterial } = options;
    const id = randomUUID();
    const spec: KeySpec = { ...newSpec, name: newSpec.name ?? id };
    // A taken name is refused before any material is made (an RSA key takes seconds); the append decides races.
    if (newSpec.name !== undefined) await this.requireNameFree(newSpec.name, scope.trace);
    await this.wrapping.createKwk(id, scope.trace);
    // Imported material (already checked against the spec) becomes version 1 in place of generated material;
    // a key made to receive material later has none until MaterialImported.
    const materialId = awaitMaterial
      ? ''
      : imported
        ? await this.storeMaterial(id, imported, scope.trace)
        : await this.storeNewMaterial(id, spec, scope.trace);
    const event: KeyEvent = {
      type: 'KeyCreated',
      at,
      spec,
      by: scope.by,
      materialId,
      owner: scope.owner ?? scope.by,
      ...(scope.tenant ? { tenant: scope.tenant } : {}),
      ...(imported || awaitMaterial ? { origin: 'imported' as const } : {}),
      ...(awaitMaterial ? { awaitingMaterial: true as const } : {}),
    };
    // Created Active: both events in one append, so no reader ever sees the key PreActive.
    const events: KeyEvent[] = options.activate ? [event, { type: 'KeyActivated', at, by: scope.by }] : [event];
    const record = scope.audit?.successRecord(facts(id));
    try {
      await scope.trace.child('journal.append', () => this.journal.append(id, 0, events, record));
    } catch (err) {
      if (!(err instanceof NameTaken)) throw err;
      // Another create took the name between the look and the append: this key's KWK and material
      // never belonged to a key, and are erased like a destroyed key's.
      await this.journal.scheduleErasure(id);
      throw nameTaken(spec.name);
    }
    if (record) scope.audit!.journaled(record);
    let key = applyEvent(undefined, { keyId: id, seq: 1, event });
    if (events.length > 1) key = applyEvent(key, { keyId: id, seq: 2, event: events[1]! });
    this.keys.set(id, key);
    return key;
  }

  /** 409 IllegalOperation when a key that is not Destroyed holds `name` (key names are unique among them). */
  async requireNameFree(name: string, trace: TraceScope = UNTRACED): Promise<void> {
    if (await trace.child('journal.nameHolder', () => this.journal.nameHolder(name))) throw nameTaken(name);
  }

  /** Generates new material, seals it under the key's KWK and stores it; returns the material id an event will name. */
  async storeNewMaterial(keyId: string, spec: KeySpec, trace: TraceScope): Promise<string> {
    const raw = await generateMaterial(spec);
    try {
      return await this.storeMaterial(keyId, raw, trace);
    } finally {
      raw.fill(0);
    }
  }

  /** Seals given material under the key's KWK and stores it; returns its new material id. The caller zeroes `raw`. */
  async storeMaterial(keyId: string, raw: Buffer, trace: TraceScope): Promise<string> {
    const materialId = randomUUID();
    const wrapped = this.wrapping.seal(await this.wrapping.kwkOf(keyId, trace), keyId, materialId, raw);
    await trace.child('journal.putMaterial', () => this.journal.putMaterial(keyId, materialId, wrapped));
    return materialId;
  }

  /**
   * Decides an event from the key's current state and appends it with its audit record, one change per
   * key at a time. On a conflict (another node wrote first) the key is re-read and the decision made again.
   */
  async mutate(
    id: string,
    scope: ChangeScope,
    // `followedBy`: a second event in the same append (an import that also activates the key).
    decide: (
      key: ManagedKey,
    ) => Promise<{ event: KeyEvent; followedBy?: KeyEvent; facts?: AuditFacts; rekey?: MaterialRekey }>,
  ): Promise<ManagedKey> {
    return this.serialised(id, async () => {
      for (let attempt = 0; ; attempt++) {
        const key = await this.get(id, scope.trace);
        const { event, followedBy, facts, rekey } = await decide(key);
        const events = followedBy ? [event, followedBy] : [event];
        try {
          const record = scope.audit?.successRecord(facts ?? {});
          await scope.trace.child('journal.append', () => this.journal.append(id, key.seq, events, record, rekey));
          if (record) scope.audit!.journaled(record);
        } catch (err) {
          if (!(err instanceof JournalConflict)) throw err;
          if (attempt >= MAX_CONFLICT_RETRIES)
            throw new SvcError('IllegalOperation', `key ${id} is being changed by other writers; retry`);
          this.keys.delete(id);
          this.confirmedAt.delete(id);
          // The winner may have been a trim on another node, which replaced the key's KWK.
          this.wrapping.forget(id);
          await pause(attempt);
          continue;
        }
        let next = applyEvent(key, { keyId: id, seq: key.seq + 1, event });
        if (followedBy) next = applyEvent(next, { keyId: id, seq: key.seq + 2, event: followedBy });
        this.keys.set(id, next);
        return next;
      }
    });
  }

  /** The parsed material of one version; throws IllegalOperation for a version the key does not have. */
  async materialOf(key: ManagedKey, version: number, trace: TraceScope = UNTRACED): Promise<ParsedMaterial> {
    requireMaterial(key);
    const v = key.versions[version];
    if (!v) throw new SvcError('IllegalOperation', `key ${key.id} has no version ${version}`);
    requireNotTrimmed(key, version);
    // Material ids are random UUIDs, unique across keys, so the id alone keys the cache (no string built per use).
    const hit = this.material.get(v.materialId);
    if (hit) return hit;
    const wrapped = await trace.child('journal.getMaterial', () => this.journal.getMaterial(key.id, v.materialId));
    if (!wrapped) return this.missingMaterial(key, version, trace);
    let raw: Buffer;
    try {
      raw = await this.wrapping.open(key.id, v.materialId, wrapped, trace);
    } catch {
      // A trim on another node may have sealed this version again under a new KWK since this node
      // cached the old one: read both afresh once.
      this.wrapping.forget(key.id);
      const again = await trace.child('journal.getMaterial', () => this.journal.getMaterial(key.id, v.materialId));
      if (!again) return this.missingMaterial(key, version, trace);
      raw = await this.wrapping.open(key.id, v.materialId, again, trace);
    }
    const parsed = parseMaterial(key.spec, raw);
    this.material.set(v.materialId, parsed);
    return parsed;
  }

  /**
   * The stored bytes of one version (raw secret or PKCS#8 DER), read and opened for this call only,
   * never cached: export hands out exactly what was stored. The caller zeroes the buffer.
   */
  async storedMaterialOf(key: ManagedKey, version: number, trace: TraceScope = UNTRACED): Promise<Buffer> {
    requireMaterial(key);
    const v = key.versions[version];
    if (!v) throw new SvcError('IllegalOperation', `key ${key.id} has no version ${version}`);
    const wrapped = await trace.child('journal.getMaterial', () => this.journal.getMaterial(key.id, v.materialId));
    if (!wrapped) return this.missingMaterial(key, version, trace);
    return this.wrapping.open(key.id, v.materialId, wrapped, trace);
  }

  /**
   * Why a version's material is not stored although `key`, as the caller read it, has it: a trim or a
   * destroy committed since (by a concurrent call, or on another node) erased it, which the key read
   * afresh tells: the caller gets the IllegalOperation a later call gets. Anything else is a store that
   * lost material: an internal error.
   */
  private async missingMaterial(key: ManagedKey, version: number, trace: TraceScope): Promise<never> {
    const fresh = await this.get(key.id, trace);
    requireNotTrimmed(fresh, version);
    if (fresh.state === 'Destroyed')
      throw new SvcError('IllegalOperation', `key ${key.id} is Destroyed; its material is erased`);
    throw new Error(`material of key ${key.id} version ${version} is missing from the store`);
  }

  /** Drops cached material (compromise, revoke, destroy) so nothing outlives the state change in memory. */
  forgetMaterial(key: ManagedKey): void {
    for (const v of Object.values(key.versions)) this.material.delete(v.materialId);
    this.wrapping.forget(key.id);
  }

  /**
   * Deletes what a destroy left stored (an older version's destroy that stopped part-way) and records its erasure task.
   */
  async scheduleErasure(key: ManagedKey, trace: TraceScope): Promise<void> {
    this.forgetMaterial(key);
    await trace.child('journal.scheduleErasure', () => this.journal.scheduleErasure(key.id));
  }

  /** True while a key's KWK or any of its material is still stored (a destroy that failed part-way). */
  hasMaterial(keyId: string): Promise<boolean> {
    return this.journal.hasMaterial(keyId);
  }

  private serialised<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(id) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => {});
    this.locks.set(id, tail);
    void tail.then(() => {
      if (this.locks.get(id) === tail) this.locks.delete(id);
    });
    return run;
  }
}

const nameTaken = (name: string) =>
  new SvcError(
    'IllegalOperation',
    `the key name ${JSON.stringify(name)} is taken: names are unique among keys that are not Destroyed`,
  );

/** A key made to receive imported material has none to use or export until the import. */
function requireMaterial(key: ManagedKey): void {
  if (key.awaitingMaterial)
    throw new SvcError(
      'IllegalOperation',
      `key ${key.id} awaits its imported material (POST /v1/keys/${key.id}/import); it has none to use yet`,
    );
}
