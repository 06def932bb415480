import {
  type AccessKeyRecord,
  type AccessKeyStore,
  AccessKeyIdTaken,
  AccessKeyLimitReached,
  type AuditRecord,
} from '../../../kernel/index.ts';

/** A copy of its own for each reader and writer, as a database answers one (the blob a Buffer again). */
const copy = (r: AccessKeyRecord): AccessKeyRecord => ({
  accessKeyId: r.accessKeyId,
  principal: structuredClone(r.principal),
  sealedSecret: { kekId: r.sealedSecret.kekId, blob: Buffer.from(r.sealedSecret.blob) },
  createdAt: r.createdAt,
  createdBy: r.createdBy,
});

/** The memory journal's access keys: lost on restart, like the keys they sit beside. */
export class MemoryAccessKeys implements AccessKeyStore {
  private readonly byId = new Map<string, AccessKeyRecord>();

  /** `outbox` keeps a change's audit record in the journal's outbox, as an append does. */
  constructor(private readonly outbox: (record: AuditRecord) => void) {}

  /** One event-loop turn, so the count and the insert are atomic here by themselves. */
  async create(
    record: AccessKeyRecord,
    options: { maxPerPrincipal?: number; audit?: AuditRecord } = {},
  ): Promise<void> {
    if (this.byId.has(record.accessKeyId)) throw new AccessKeyIdTaken(record.accessKeyId);
    if (options.maxPerPrincipal !== undefined) {
      const { kind, subject } = record.principal;
      let held = 0;
      for (const r of this.byId.values()) if (r.principal.kind === kind && r.principal.subject === subject) held++;
      if (held >= options.maxPerPrincipal) throw new AccessKeyLimitReached(options.maxPerPrincipal);
    }
    this.byId.set(record.accessKeyId, copy(record));
    if (options.audit) this.outbox(options.audit);
  }

  async get(accessKeyId: string): Promise<AccessKeyRecord | undefined> {
    const found = this.byId.get(accessKeyId);
    return found && copy(found);
  }

  async list(filter: { principal?: string; limit: number; after?: string }): Promise<AccessKeyRecord[]> {
    return [...this.byId.values()]
      .filter(
        (r) =>
          (filter.principal === undefined || r.principal.subject === filter.principal) &&
          (filter.after === undefined || r.accessKeyId > filter.after),
      )
      .sort((a, b) => (a.accessKeyId < b.accessKeyId ? -1 : 1))
      .slice(0, Math.max(0, filter.limit))
      .map(copy);
  }

  async remove(accessKeyId: string, audit?: AuditRecord): Promise<boolean> {
    const found = this.byId.get(accessKeyId);
    if (!found) return false;
    // The sealed secret is only ever readable through the root of trust; zeroing it anyway leaves nothing behind.
    found.sealedSecret.blob.fill(0);
    this.byId.delete(accessKeyId);
    if (audit) this.outbox(audit);
    return true;
  }
}
