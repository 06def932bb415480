import { type AuditRecord, AliasTaken, type KeyAlias, type KeyAliases } from '../../../kernel/index.ts';

/** The memory journal's aliases; `outbox` takes a change's audit record (the journal's outbox). */
export class MemoryKeyAliases implements KeyAliases {
  private readonly byName = new Map<string, KeyAlias>();

  constructor(private readonly outbox: (record: AuditRecord) => void) {}

  async resolve(name: string): Promise<string | undefined> {
    return this.byName.get(name)?.keyId;
  }

  async create(alias: KeyAlias, audit?: AuditRecord): Promise<void> {
    if (this.byName.has(alias.name)) throw new AliasTaken(alias.name);
    this.byName.set(alias.name, { ...alias });
    if (audit) this.outbox(audit);
  }

  async move(name: string, fromKeyId: string, toKeyId: string, audit?: AuditRecord): Promise<boolean> {
    const alias = this.byName.get(name);
    if (alias?.keyId !== fromKeyId) return false;
    this.byName.set(name, { ...alias, keyId: toKeyId });
    if (audit) this.outbox(audit);
    return true;
  }

  async remove(name: string, keyId: string, audit?: AuditRecord): Promise<boolean> {
    if (this.byName.get(name)?.keyId !== keyId) return false;
    this.byName.delete(name);
    if (audit) this.outbox(audit);
    return true;
  }

  async list(filter: { keyId?: string; after?: string; limit: number }): Promise<KeyAlias[]> {
    return [...this.byName.values()]
      .filter(
        (a) => (filter.keyId === undefined || a.keyId === filter.keyId) && (!filter.after || a.name > filter.after),
      )
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .slice(0, filter.limit)
      .map((a) => ({ ...a }));
  }

  async ofKeys(keyIds: string[]): Promise<Map<string, string[]>> {
    const wanted = new Set(keyIds);
    const found = new Map<string, string[]>();
    for (const alias of [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1)))
      if (wanted.has(alias.keyId)) found.set(alias.keyId, [...(found.get(alias.keyId) ?? []), alias.name]);
    return found;
  }

  /** A destroyed key loses its aliases (called in the Destroyed append). */
  dropKey(keyId: string): void {
    for (const [name, alias] of this.byName) if (alias.keyId === keyId) this.byName.delete(name);
  }
}
