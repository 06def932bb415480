import { LRUCache } from 'lru-cache';
import type { PrincipalKind } from '../model/index.ts';

/**
 * Per-actor state for detectors, bounded: at most `maxPerKind` actors of each principal kind, the least
 * recently seen dropped first. Keyed by kind, then subject, so a lookup builds no key string: within one
 * request every detector reads the same subject string, whose hash V8 computes once.
 */
export class ActorTable<V> {
  private readonly kinds = new Map<PrincipalKind, LRUCache<string, V & {}>>();

  constructor(private readonly maxPerKind: number) {}

  /** The actor's state, marking it recently seen. */
  get(actor: { kind: PrincipalKind; subject: string }): V | undefined {
    return this.kinds.get(actor.kind)?.get(actor.subject);
  }

  /** The actor's state without marking it seen (for questions that are not sightings). */
  peek(actor: { kind: PrincipalKind; subject: string }): V | undefined {
    return this.kinds.get(actor.kind)?.peek(actor.subject);
  }

  set(actor: { kind: PrincipalKind; subject: string }, value: V & {}): void {
    let table = this.kinds.get(actor.kind);
    if (!table) this.kinds.set(actor.kind, (table = new LRUCache<string, V & {}>({ max: this.maxPerKind })));
    table.set(actor.subject, value);
  }
}
