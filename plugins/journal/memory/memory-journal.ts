import {
  type AuditRecord,
  type ErasureAttempt,
  JournalConflict,
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
import { MemoryAccessKeys } from './memory-access-keys.ts';
import { MemoryAgentRegistry } from './memory-agent-registry.ts';
import { MemoryKeyAliases } from './memory-key-aliases.ts';
import { MemoryKeyIndex } from './memory-key-index.ts';
import { MemoryNodeRegistry } from './memory-node-registry.ts';
import { MemoryPolicyStore } from './memory-policy-store.ts';

/** Process-local journal: everything is lost on restart. Same contract as the SQL journals. */
export class MemoryJournal implements KeyJournal {
  readonly agents = new MemoryAgentRegistry();
  readonly nodes = new MemoryNodeRegistry();
  readonly policies = new MemoryPolicyStore((record) => this.outbox.set(record.id, record));
  private readonly events = new Map<string, StoredEvent[]>();
  private readonly material = new Map<string, Map<string, Buffer>>();
  private readonly outbox = new Map<string, AuditRecord>();
  readonly aliases = new MemoryKeyAliases((record) => this.outbox.set(record.id, record));
  readonly accessKeys = new MemoryAccessKeys((record) => this.outbox.set(record.id, record));
  private readonly kwks = new Map<string, WrappedKey>();
  private readonly destroySchedule = new Map<string, string>();
  private readonly importTokens = new Map<string, StoredImportToken>();
  private readonly index = new MemoryKeyIndex();

  async append(
    keyId: string,
    expectedSeq: number,
    events: KeyEvent[],
    audit?: AuditRecord,
    rekey?: MaterialRekey,
  ): Promise<void> {
    const log = this.events.get(keyId) ?? [];
    if (log.length !== expectedSeq) throw new JournalConflict(keyId, expectedSeq + 1);
    this.index.checkNames(events);
    log.push(...events.map((event, i) => ({ keyId, seq: expectedSeq + 1 + i, event: structuredClone(event) })));
    this.events.set(keyId, log);
    this.index.apply(keyId, events);
    // The pipeline never changes a record once it is journaled, so the outbox keeps it as it is.
    if (audit) this.outbox.set(audit.id, audit);
    if (events.some((e) => e.type === 'Destroyed')) {
      this.erase(keyId);
      this.aliases.dropKey(keyId);
    }
    for (const event of events) {
      if (event.type === 'DestroyScheduled') this.destroySchedule.set(keyId, event.destroyAt);
      else if (event.type === 'DestroyCancelled' || event.type === 'Destroyed') this.destroySchedule.delete(keyId);
    }
    if (rekey) this.rekey(keyId, rekey);
  }

  /** A trim: the old KWK and the erased material are zeroed and dropped, the kept material replaced. */
  private rekey(keyId: string, rekey: MaterialRekey): void {
    this.kwks.get(keyId)?.blob.fill(0);
    this.kwks.set(keyId, { kekId: rekey.kwk.kekId, blob: Buffer.from(rekey.kwk.blob) });
    const versions = this.material.get(keyId);
    if (!versions) return;
    for (const kept of rekey.kept) {
      versions.get(kept.materialId)?.fill(0);
      if (versions.has(kept.materialId)) versions.set(kept.materialId, Buffer.from(kept.wrapped));
    }
    for (const materialId of rekey.erased) {
      versions.get(materialId)?.fill(0);
      versions.delete(materialId);
    }
  }

  async dueDestructions(now: string, limit: number): Promise<Array<{ keyId: string; destroyAt: string }>> {
    return [...this.destroySchedule]
      .filter(([, at]) => at <= now)
      .sort(([, a], [, b]) => a.localeCompare(b))
      .slice(0, limit)
      .map(([keyId, destroyAt]) => ({ keyId, destroyAt }));
  }

  async pendingAudit(before: string, limit: number): Promise<AuditRecord[]> {
    return [...this.outbox.values()]
      .filter((r) => r.occurredAt < before)
      .sort((a, b) => a.occurredAt.localeCompare(b.occurredAt))
      .slice(0, limit);
  }

  async ackAudit(ids: string[]): Promise<void> {
    for (const id of ids) this.outbox.delete(id);
  }

  async load(keyId: string): Promise<StoredEvent[]> {
    return structuredClone(this.events.get(keyId) ?? []);
  }

  async lastSeq(keyId: string): Promise<number> {
    return this.events.get(keyId)?.length ?? 0;
  }

  async keyIds(): Promise<string[]> {
    return [...this.events.keys()];
  }

  async putMaterial(keyId: string, materialId: string, wrapped: Buffer): Promise<void> {
    const versions = this.material.get(keyId) ?? new Map<string, Buffer>();
    versions.set(materialId, Buffer.from(wrapped));
    this.material.set(keyId, versions);
  }

  async getMaterial(keyId: string, materialId: string): Promise<Buffer | undefined> {
    return this.material.get(keyId)?.get(materialId);
  }

  /** Memory has no files to scrub: the buffers are zeroed at the delete, so an erase is complete at once. */
  private erase(keyId: string): void {
    for (const buf of this.material.get(keyId)?.values() ?? []) buf.fill(0);
    this.material.delete(keyId);
    this.kwks.get(keyId)?.blob.fill(0);
    this.kwks.delete(keyId);
  }

  async scheduleErasure(keyId: string): Promise<void> {
    this.erase(keyId);
  }

  async pendingErasures(): Promise<string[]> {
    return [];
  }

  async erasePending(): Promise<ErasureAttempt> {
    return { erased: [], pending: [] };
  }

  async hasMaterial(keyId: string): Promise<boolean> {
    return this.kwks.has(keyId) || (this.material.get(keyId)?.size ?? 0) > 0;
  }

  async putKwk(keyId: string, wrapped: WrappedKey): Promise<void> {
    this.kwks.set(keyId, { kekId: wrapped.kekId, blob: Buffer.from(wrapped.blob) });
  }

  async getKwk(keyId: string): Promise<WrappedKey | undefined> {
    return this.kwks.get(keyId);
  }

  async kwksNotUnder(kekId: string, limit: number): Promise<Array<{ keyId: string; wrapped: WrappedKey }>> {
    return [...this.kwks]
      .filter(([, w]) => w.kekId !== kekId)
      .slice(0, limit)
      .map(([keyId, wrapped]) => ({ keyId, wrapped }));
  }

  async replaceKwk(keyId: string, from: WrappedKey, to: WrappedKey): Promise<boolean> {
    const now = this.kwks.get(keyId);
    if (!now || now.kekId !== from.kekId || !now.blob.equals(from.blob)) return false;
    this.kwks.set(keyId, { kekId: to.kekId, blob: Buffer.from(to.blob) });
    return true;
  }

  async rewrapMaterial(keyId: string, materialId: string, wrapped: Buffer): Promise<void> {
    if (this.material.get(keyId)?.has(materialId)) this.material.get(keyId)!.set(materialId, Buffer.from(wrapped));
  }

  async materialIds(keyId: string): Promise<string[]> {
    return [...(this.material.get(keyId)?.keys() ?? [])];
  }

  /** One event-loop turn, so the count and the insert are atomic here by themselves. */
  async putImportToken(token: StoredImportToken, maxLive: number): Promise<boolean> {
    this.pruneImportTokens(token.createdAt);
    if (this.countImportTokens(token.issuedTo, token.createdAt) >= maxLive) return false;
    this.importTokens.set(token.tokenHash, structuredClone(token));
    return true;
  }

  async liveImportTokens(issuedTo: string, now: string): Promise<number> {
    return this.countImportTokens(issuedTo, now);
  }

  private countImportTokens(issuedTo: string, now: string): number {
    let live = 0;
    for (const held of this.importTokens.values()) if (held.issuedTo === issuedTo && held.expiresAt > now) live++;
    return live;
  }

  /** One event-loop turn, so a spend is atomic here by itself. */
  async takeImportToken(tokenHash: string, issuedTo: string, now: string): Promise<StoredImportToken | undefined> {
    const token = this.importTokens.get(tokenHash);
    this.pruneImportTokens(now);
    if (!token || token.issuedTo !== issuedTo || token.expiresAt <= now) return undefined;
    this.importTokens.delete(tokenHash);
    return token;
  }

  private pruneImportTokens(now: string): void {
    for (const [hash, token] of this.importTokens) if (token.expiresAt <= now) this.importTokens.delete(hash);
  }

  async locate(filter: LocateFilter, after: LocatePosition | undefined, limit: number): Promise<LocatedRows> {
    return { keys: this.index.locate(filter, after, limit) };
  }

  async nameHolder(name: string): Promise<string | undefined> {
    return this.index.holder(name);
  }

  async duplicateNames(): Promise<Array<{ name: string; keyIds: string[] }>> {
    return this.index.duplicates();
  }

  async probe(): Promise<void> {}
}
