import { type Clock, type ManagedKey, requireCallerText, SvcError } from '../../kernel/index.ts';
import type { ChangeScope, KeyStore } from './key-store.ts';
import { checkTags, MAX_TAGS } from './tags.ts';
import { requireTransition } from './key-state.ts';

/**
 * The key's attributes beside its lifecycle: the reversible disable and its tags. Each change is one
 * journal event, appended with its audit record; a change that changes nothing (disable a disabled key)
 * appends none and answers the key as it is.
 */
export class KeyAttributes {
  constructor(
    private readonly store: KeyStore,
    private readonly clock: Clock,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  async disable(id: string, scope: ChangeScope, reason: string | undefined): Promise<ManagedKey> {
    const current = await this.store.get(id, scope.trace);
    if (!current.enabled) return current;
    const key = await this.store.mutate(id, scope, async (k) => {
      requireTransition(k, 'KeyDisabled');
      return { event: { type: 'KeyDisabled', at: this.now(), by: scope.by, ...(reason ? { reason } : {}) } };
    });
    this.store.forgetMaterial(key);
    return key;
  }

  async enable(id: string, scope: ChangeScope): Promise<ManagedKey> {
    const current = await this.store.get(id, scope.trace);
    if (current.enabled) return current;
    return this.store.mutate(id, scope, async (k) => {
      requireTransition(k, 'KeyEnabled');
      return { event: { type: 'KeyEnabled', at: this.now(), by: scope.by } };
    });
  }

  /** Merges `tags` over the key's (a key's tag count after the merge is at most MAX_TAGS). */
  async tag(id: string, scope: ChangeScope, tags: Record<string, string>): Promise<ManagedKey> {
    const set = checkTags(tags, 'tags');
    return this.store.mutate(id, scope, async (k) => {
      requireTransition(k, 'TagsChanged');
      const count = new Set([...Object.keys(k.tags), ...Object.keys(set)]).size;
      if (count > MAX_TAGS)
        throw new SvcError('InvalidField', `key ${id} would have ${count} tags; a key has at most ${MAX_TAGS}`);
      return {
        event: { type: 'TagsChanged', at: this.now(), by: scope.by, set },
        facts: { context: { tagKeys: JSON.stringify(Object.keys(set).sort()) } },
      };
    });
  }

  /** Removes the named tag keys (names the key does not carry are ignored). */
  async untag(id: string, scope: ChangeScope, names: string[]): Promise<ManagedKey> {
    for (const name of names) requireCallerText(name, 'keys');
    return this.store.mutate(id, scope, async (k) => {
      requireTransition(k, 'TagsChanged');
      const removed = names.filter((name) => Object.hasOwn(k.tags, name));
      return {
        event: { type: 'TagsChanged', at: this.now(), by: scope.by, removed },
        facts: { context: { tagKeys: JSON.stringify(removed.sort()) } },
      };
    });
  }
}
