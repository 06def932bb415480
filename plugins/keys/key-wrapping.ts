import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { Counter, type Registry } from 'prom-client';
import {
  type KeyJournal,
  type Logger,
  type MaterialRekey,
  openAesGcm,
  type RootOfTrust,
  sealAesGcm,
  type TraceScope,
  UNTRACED,
} from '../../kernel/index.ts';
import { checkStoredKwksOpen } from './stored-kwk-check.ts';

/** Material sealed under its key's KWK. */
const MATERIAL_FORMAT = 3;
/** Material svc-kms 0.1 wrapped directly under the local KEK. */
const LEGACY_FORMAT = 1;

export interface KwkCacheSettings {
  ttlSeconds: number;
  maxEntries: number;
}

/**
 * The middle of the key hierarchy: root-of-trust KEK -> one key-wrapping key (KWK, AES-256) per
 * managed key -> every version's material. Destroying a key erases its KWK, which makes every copy of
 * its material (in free pages, backups, replicas) unreadable; rotating the KEK re-wraps only the small
 * KWKs. Unwrapped KWKs are cached (bounded, with a time limit) so that a cloud root of trust is called
 * once per key per TTL, and dropped when the key is compromised, revoked or destroyed.
 */
export class KeyWrapping {
  private readonly cache: LRUCache<string, Buffer>;
  private readonly lookups: Counter<'result'>;
  private readonly adopting = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly journal: KeyJournal,
    private readonly rootOfTrust: RootOfTrust,
    private readonly logger: Logger,
    cache: KwkCacheSettings,
    registry: Registry,
  ) {
    this.cache = new LRUCache({ max: Math.max(1, cache.maxEntries), ttl: Math.max(1, cache.ttlSeconds) * 1000 });
    this.lookups = new Counter({
      name: 'svc_keys_kwk_cache_total',
      help: 'Key-wrapping key lookups: hit (in memory) or miss (unwrapped by the root of trust).',
      labelNames: ['result'],
      registers: [registry],
    });
  }

  /** Makes, wraps and stores a new key's KWK. */
  async createKwk(keyId: string, trace: TraceScope = UNTRACED): Promise<Buffer> {
    const kwk = randomBytes(32);
    const wrapped = await trace.child('rootOfTrust.wrap', () => this.rootOfTrust.wrap(kwk, keyId, { trace }));
    await trace.child('journal.putKwk', () => this.journal.putKwk(keyId, wrapped));
    this.cache.set(keyId, kwk);
    return kwk;
  }

  /** The key's KWK, from the cache or unwrapped by the root of trust. A key from 0.1 gets one here. */
  async kwkOf(keyId: string, trace: TraceScope = UNTRACED): Promise<Buffer> {
    const hit = this.cache.get(keyId);
    this.lookups.inc({ result: hit ? 'hit' : 'miss' });
    if (hit) return hit;
    const wrapped = await trace.child('journal.getKwk', () => this.journal.getKwk(keyId));
    if (!wrapped) return this.adoptLegacyKey(keyId, trace);
    const kwk = await trace.child('rootOfTrust.unwrap', () => this.rootOfTrust.unwrap(wrapped, keyId, { trace }));
    this.cache.set(keyId, kwk);
    return kwk;
  }

  seal(kwk: Buffer, keyId: string, materialId: string, raw: Buffer): Buffer {
    return sealAesGcm(kwk, MATERIAL_FORMAT, `${keyId}/${materialId}`, raw);
  }

  /** The raw material of one stored blob: under the key's KWK, or (0.1 keys not moved yet) under the KEK. */
  async open(keyId: string, materialId: string, blob: Buffer, trace: TraceScope = UNTRACED): Promise<Buffer> {
    if (blob[0] === LEGACY_FORMAT && this.rootOfTrust.unwrapLegacy) {
      const raw = await this.rootOfTrust.unwrapLegacy(blob, `${keyId}/${materialId}`);
      // The first read of a 0.1 key moves it under a KWK, so destroy and KEK rotation cover it from now on.
      if (!this.cache.has(keyId) && !(await this.journal.getKwk(keyId))) await this.adoptLegacyKey(keyId, trace);
      return raw;
    }
    return openAesGcm(await this.kwkOf(keyId, trace), MATERIAL_FORMAT, `${keyId}/${materialId}`, blob);
  }

  /** At start: the root of trust opens the stored KWKs, or the boot stops saying why (`checkStoredKwksOpen`). */
  checkRootOfTrust(): Promise<void> {
    return checkStoredKwksOpen(this.journal, this.rootOfTrust, this.logger);
  }

  /**
   * A new KWK for a key that trims versions, with the kept material sealed again under it: the journal
   * swaps them in with the trim's event, so the old KWK (the only key to the erased rows' copies) goes
   * with the erase. The old KWK is read from the journal, never from the cache, which another node's
   * trim may have outdated.
   */
  async rekey(keyId: string, kept: string[], erased: string[], trace: TraceScope = UNTRACED): Promise<MaterialRekey> {
    this.forget(keyId);
    const old = await this.kwkOf(keyId, trace);
    this.forget(keyId);
    const kwk = randomBytes(32);
    try {
      const resealed: MaterialRekey['kept'] = [];
      for (const materialId of kept) {
        const blob = await trace.child('journal.getMaterial', () => this.journal.getMaterial(keyId, materialId));
        if (!blob) throw new Error(`material ${materialId} of key ${keyId} is missing from the store`);
        const raw =
          blob[0] === MATERIAL_FORMAT
            ? openAesGcm(old, MATERIAL_FORMAT, `${keyId}/${materialId}`, blob)
            : await this.open(keyId, materialId, blob, trace);
        resealed.push({ materialId, wrapped: this.seal(kwk, keyId, materialId, raw) });
        raw.fill(0);
      }
      const wrapped = await trace.child('rootOfTrust.wrap', () => this.rootOfTrust.wrap(kwk, keyId, { trace }));
      return { kwk: wrapped, kept: resealed, erased };
    } finally {
      kwk.fill(0);
    }
  }

  /** Drops the key's KWK from memory (compromise, revoke, destroy). */
  forget(keyId: string): void {
    this.cache.delete(keyId);
  }

  /**
   * Re-wraps every KWK not under the current KEK with the current one (KEK rotation, or moving from one
   * root of trust to another). Returns how many it re-wrapped. A KWK another node re-wrapped meanwhile is
   * skipped. Keys from 0.1 are first given a KWK.
   */
  async rewrapAll(): Promise<{ rewrapped: number; kekId: string }> {
    for (const keyId of await this.journal.keyIds()) {
      if (!(await this.journal.getKwk(keyId)) && (await this.journal.materialIds(keyId)).length > 0)
        await this.adoptLegacyKey(keyId, UNTRACED);
    }
    const kekId = this.rootOfTrust.currentKekId();
    let rewrapped = 0;
    for (
      let batch = await this.journal.kwksNotUnder(kekId, 500);
      batch.length > 0;
      batch = await this.journal.kwksNotUnder(kekId, 500)
    ) {
      let moved = 0;
      for (const { keyId, wrapped } of batch) {
        const kwk = await this.rootOfTrust.unwrap(wrapped, keyId);
        if (await this.journal.replaceKwk(keyId, wrapped, await this.rootOfTrust.wrap(kwk, keyId))) moved++;
      }
      // A batch whose every row another writer changed first moved nothing: do not spin on it.
      if (moved === 0) break;
      rewrapped += moved;
    }
    return { rewrapped, kekId };
  }

  /**
   * A key written by svc-kms 0.1 has no KWK: its material was wrapped directly under the local KEK. It
   * gets a KWK now (stored first, so a crash half-way leaves every blob readable: `open` reads both
   * formats) and every version's material is sealed again under it, so that destroy and KEK rotation
   * work for it like for any other key. Concurrent callers in this process share one adoption.
   */
  private adoptLegacyKey(keyId: string, trace: TraceScope): Promise<Buffer> {
    let running = this.adopting.get(keyId);
    if (!running) {
      running = this.adopt(keyId, trace).finally(() => this.adopting.delete(keyId));
      this.adopting.set(keyId, running);
    }
    return running;
  }

  private async adopt(keyId: string, trace: TraceScope): Promise<Buffer> {
    if (!this.rootOfTrust.unwrapLegacy) throw new Error(`key ${keyId} has no key-wrapping key`);
    const kwk = randomBytes(32);
    try {
      await this.journal.putKwk(
        keyId,
        await trace.child('rootOfTrust.wrap', () => this.rootOfTrust.wrap(kwk, keyId, { trace })),
      );
    } catch (err) {
      // Another node adopted the key first: use its KWK.
      const theirs = await this.journal.getKwk(keyId);
      if (!theirs) throw err;
      return this.rootOfTrust.unwrap(theirs, keyId, { trace });
    }
    for (const materialId of await this.journal.materialIds(keyId)) {
      const blob = await this.journal.getMaterial(keyId, materialId);
      if (!blob || blob[0] !== LEGACY_FORMAT) continue;
      const raw = await this.rootOfTrust.unwrapLegacy(blob, `${keyId}/${materialId}`);
      await this.journal.rewrapMaterial(keyId, materialId, this.seal(kwk, keyId, materialId, raw));
      raw.fill(0);
    }
    this.logger.info('moved a key from the 0.1 material format under a key-wrapping key', { keyId });
    this.cache.set(keyId, kwk);
    return kwk;
  }
}
