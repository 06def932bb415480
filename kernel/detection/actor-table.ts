import { LRUCache } from 'lru-cache';
import type { PrincipalKind } from '../model/index.ts';
import type { ActorStateBudget, Evictable } from './state-budget.ts';

/** Estimated bytes of one entry besides its subject and value: map slots, the entry object, headers. */
const ENTRY_OVERHEAD = 120;

interface Entry<V> {
  value: V;
  bytes: number;
}

/**
 * Per-actor state for detectors, bounded twice: at most `maxPerKind` actors of each principal kind, and
 * a share of the detectors' byte budget (least recently seen dropped first in both cases). Keyed by
 * kind, then subject, so a lookup builds no key string: within one request every detector reads the
 * same subject string, whose hash V8 computes once.
 */
export class ActorTable<V> implements Evictable {
  bytes = 0;
  private readonly kinds = new Map<PrincipalKind, LRUCache<string, Entry<V>>>();

  /** `sizeOf` estimates a value's bytes when it is set; values that grow later report it with `grew`. */
  constructor(
    private readonly budget: ActorStateBudget,
    private readonly maxPerKind: number,
    private readonly sizeOf: (value: V) => number,
  ) {
    budget.register(this);
  }

  /** The actor's state, marking it recently seen. */
  get(actor: { kind: PrincipalKind; subject: string }): V | undefined {
    return this.kinds.get(actor.kind)?.get(actor.subject)?.value;
  }

  /** The actor's state without marking it seen (for questions that are not sightings). */
  peek(actor: { kind: PrincipalKind; subject: string }): V | undefined {
    return this.kinds.get(actor.kind)?.peek(actor.subject)?.value;
  }

  set(actor: { kind: PrincipalKind; subject: string }, value: V): void {
    let table = this.kinds.get(actor.kind);
    if (!table) {
      table = new LRUCache<string, Entry<V>>({ max: this.maxPerKind, dispose: (entry) => this.release(entry.bytes) });
      this.kinds.set(actor.kind, table);
    }
    const bytes = ENTRY_OVERHEAD + 2 * actor.subject.length + this.sizeOf(value);
    table.set(actor.subject, { value, bytes });
    this.bytes += bytes;
    this.budget.charge(this, bytes);
  }

  /** The actor's value grew by about `bytes` (a baseline learnt a value). */
  grew(actor: { kind: PrincipalKind; subject: string }, bytes: number): void {
    const entry = this.kinds.get(actor.kind)?.peek(actor.subject);
    if (!entry) return;
    entry.bytes += bytes;
    this.bytes += bytes;
    this.budget.charge(this, bytes);
  }

  evictOldest(): boolean {
    let fullest: LRUCache<string, Entry<V>> | undefined;
    for (const table of this.kinds.values()) if (!fullest || table.size > fullest.size) fullest = table;
    return fullest !== undefined && fullest.pop() !== undefined;
  }

  private release(bytes: number): void {
    this.bytes -= bytes;
    this.budget.used -= bytes;
  }
}
