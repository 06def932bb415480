import {
  type AccessKeyRecord,
  type AccessKeyStore,
  AccessKeyIdTaken,
  AccessKeyLimitReached,
  type AuditRecord,
} from '../../../kernel/index.ts';

/**
 * The record as stored: frozen, so the records readers get (every signed call reads one) can be the
 * stored one without a copy; only the sealed secret's bytes are copied, as a database answers them.
 */
const frozen = (r: AccessKeyRecord): AccessKeyRecord =>
  Object.freeze({
    accessKeyId: r.accessKeyId,
    principal: deepFreeze(structuredClone(r.principal)),
    sealedSecret: Object.freeze({ kekId: r.sealedSecret.kekId, blob: Buffer.from(r.sealedSecret.blob) }),
    createdAt: r.createdAt,
    createdBy: r.createdBy,
  });
const deepFreeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
};
const copy = (r: AccessKeyRecord): AccessKeyRecord => ({
  ...r,
  sealedSecret: { kekId: r.sealedSecret.kekId, blob: Buffer.from(r.sealedSecret.blob) },
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
    this.byId.set(record.accessKeyId, frozen(record));
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
