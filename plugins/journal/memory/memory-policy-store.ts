import type { AuditRecord, NewPolicyVersion, PolicyStore, PolicyVersion } from '../../../kernel/index.ts';

/** The policy versions of the in-memory journal: lost on restart, like the keys they sit beside. */
export class MemoryPolicyStore implements PolicyStore {
  private readonly versions: PolicyVersion[] = [];

  /** `outbox` keeps a put's audit record in the journal's outbox, as an append does. */
  constructor(private readonly outbox: (record: AuditRecord) => void) {}

  async latest(): Promise<PolicyVersion | undefined> {
    const newest = this.versions.at(-1);
    return newest && structuredClone(newest);
  }

  async latestVersion(): Promise<number> {
    return this.versions.length;
  }

  /** One event-loop turn, so the check and the write are atomic here by themselves. */
  async put(next: NewPolicyVersion, expectedVersion: number, audit?: AuditRecord): Promise<boolean> {
    if (this.versions.length !== expectedVersion) return false;
    this.versions.push({ ...structuredClone(next), version: expectedVersion + 1 });
    if (audit) this.outbox(audit);
    return true;
  }

  async history(limit: number): Promise<PolicyVersion[]> {
    if (limit <= 0) return [];
    return this.versions
      .slice(-limit)
      .reverse()
      .map((v) => structuredClone(v));
  }
}
