import type { AuditRecord, KeyEvent, StoredEvent } from '../../../kernel/model/index.ts';
import { JournalConflict, type KeyJournal } from '../../../kernel/ports/journal.ts';

/** Process-local journal: everything is lost on restart. Same contract as the SQL journals. */
export class MemoryJournal implements KeyJournal {
  private readonly events = new Map<string, StoredEvent[]>();
  private readonly material = new Map<string, Map<string, Buffer>>();
  private readonly outbox = new Map<string, AuditRecord>();

  async append(keyId: string, expectedSeq: number, events: KeyEvent[], audit?: AuditRecord): Promise<void> {
    const log = this.events.get(keyId) ?? [];
    if (log.length !== expectedSeq) throw new JournalConflict(keyId, expectedSeq + 1);
    log.push(...events.map((event, i) => ({ keyId, seq: expectedSeq + 1 + i, event: structuredClone(event) })));
    this.events.set(keyId, log);
    // The pipeline never changes a record once it is journaled, so the outbox keeps it as it is.
    if (audit) this.outbox.set(audit.id, audit);
  }

  async pendingAudit(before: string, limit: number): Promise<AuditRecord[]> {
    return [...this.outbox.values()].filter((r) => r.occurredAt < before).sort((a, b) => a.occurredAt.localeCompare(b.occurredAt)).slice(0, limit);
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

  async eraseMaterial(keyId: string): Promise<void> {
    for (const buf of this.material.get(keyId)?.values() ?? []) buf.fill(0);
    this.material.delete(keyId);
  }

  async probe(): Promise<void> {}
}
