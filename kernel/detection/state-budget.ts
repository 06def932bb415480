import { createPortRef } from '../ports/port-ref.ts';

/** detectors.maxStateBytes when a configuration does not say. */
export const DEFAULT_STATE_BYTES = 64 * 1024 * 1024;

/** What a budget can take back from a table of actor state. */
export interface Evictable {
  readonly bytes: number;
  /** Drops the table's least recently seen actor; false when it holds none. */
  evictOldest(): boolean;
}

/**
 * One byte budget for the state every detector keeps about actors (`detectors.maxStateBytes`). Sizes
 * are estimates (two bytes per character of the strings kept, eight per number, plus a fixed overhead
 * per entry), so attacker-sized subjects and values count for what they cost. When a table grows past
 * the budget, its own least recently seen actors go first, then those of the largest table.
 */
export class ActorStateBudget {
  used = 0;
  private readonly tables: Evictable[] = [];

  constructor(readonly maxBytes: number) {}

  register(table: Evictable): void {
    this.tables.push(table);
  }

  charge(from: Evictable, bytes: number): void {
    this.used += bytes;
    while (this.used > this.maxBytes) {
      if (from.evictOldest()) continue;
      const largest = this.tables.reduce<Evictable | undefined>((a, b) => (!a || b.bytes > a.bytes ? b : a), undefined);
      if (!largest?.evictOldest()) return;
    }
  }
}

export const actorStatePort = createPortRef<ActorStateBudget>('actorState');
