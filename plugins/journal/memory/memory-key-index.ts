import {
  type IndexedKey,
  indexedKeyOf,
  isAfter,
  type KeyEvent,
  type LocateFilter,
  type LocatePosition,
  matchesLocate,
  NameTaken,
  stateAfter,
  tagsAfter,
} from '../../../kernel/index.ts';

/**
 * The memory journal's key index: one row per key, newest first on read, and which key holds each name
 * (names are unique among keys that are not Destroyed); kept by the journal's appends.
 */
export class MemoryKeyIndex {
  private readonly rows = new Map<string, IndexedKey>();
  private readonly names = new Map<string, string>();

  /** Throws NameTaken when the events would create a key under a name another live key holds; changes nothing. */
  checkNames(events: KeyEvent[]): void {
    for (const event of events)
      if (event.type === 'KeyCreated' && this.names.has(event.spec.name)) throw new NameTaken(event.spec.name);
  }

  /** Applies appended events (already accepted by the journal, names checked) to the key's row. */
  apply(keyId: string, events: KeyEvent[]): void {
    for (const event of events) {
      if (event.type === 'KeyCreated') {
        this.rows.set(keyId, indexedKeyOf(keyId, event));
        this.names.set(event.spec.name, keyId);
        continue;
      }
      const row = this.rows.get(keyId);
      if (event.type === 'TagsChanged' && row) {
        this.rows.set(keyId, { ...row, tags: tagsAfter(row.tags, event) });
        continue;
      }
      const state = stateAfter(event);
      if (state && row) this.rows.set(keyId, { ...row, state });
      if (state === 'Destroyed' && row && this.names.get(row.name) === keyId) this.names.delete(row.name);
    }
  }

  holder(name: string): string | undefined {
    return this.names.get(name);
  }

  /** Never any: this journal enforced unique names from its start. */
  duplicates(): Array<{ name: string; keyIds: string[] }> {
    return [];
  }

  locate(filter: LocateFilter, after: LocatePosition | undefined, limit: number): IndexedKey[] {
    return [...this.rows.values()]
      .filter((key) => isAfter(key, after) && matchesLocate(key, filter))
      .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
      .slice(0, Math.max(0, limit))
      .map((key) => ({ ...key, ...(key.tags ? { tags: { ...key.tags } } : {}) }));
  }
}
