import { type IndexedKey, indexedKeyOf, isAfter, type KeyEvent, type LocateFilter, type LocatePosition, matchesLocate, stateAfter } from '../../../kernel/index.ts';

/** The memory journal's key index: one row per key, newest first on read; kept by the journal's appends. */
export class MemoryKeyIndex {
  private readonly rows = new Map<string, IndexedKey>();

  /** Applies appended events (already accepted by the journal) to the key's row. */
  apply(keyId: string, events: KeyEvent[]): void {
    for (const event of events) {
      if (event.type === 'KeyCreated') {
        this.rows.set(keyId, indexedKeyOf(keyId, event));
        continue;
      }
      const state = stateAfter(event);
      const row = this.rows.get(keyId);
      if (state && row) this.rows.set(keyId, { ...row, state });
    }
  }

  locate(filter: LocateFilter, after: LocatePosition | undefined, limit: number): IndexedKey[] {
    return [...this.rows.values()]
      .filter((key) => isAfter(key, after) && matchesLocate(key, filter))
      .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
      .slice(0, Math.max(0, limit))
      .map((key) => ({ ...key }));
  }
}
