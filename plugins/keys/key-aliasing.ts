import {
  AliasTaken,
  isAlias,
  type Clock,
  type KeyAlias,
  type KeyAliases,
  type OperationCall,
  type ResourceFacts,
  SvcError,
} from '../../kernel/index.ts';
import type { KeyStore } from './key-store.ts';

/** Rows of the alias table one read of a listing asks for (at least the page size plus one). */
const LIST_READ_ROWS = 500;

/** How often a create or move that lost a race to another writer reads the alias again. */
const MAX_ATTEMPTS = 3;

function requireAliasName(name: string): void {
  if (!isAlias(name))
    throw new SvcError(
      'InvalidField',
      'an alias is alias/NAME, NAME 1..250 of A-Za-z0-9/_- and not starting with aws/ (AWS reserves alias/aws/)',
    );
}

/**
 * Aliases: `alias/NAME` naming one key, unique per deployment. Creating or moving one is a change of
 * the key it will name (AddAttribute, authorized by the pipeline); moving it away from a key is a change
 * of that key too, which the handler asks the policy for. The change and its audit record commit
 * together (the journal's outbox).
 */
export class KeyAliasing {
  constructor(
    private readonly store: KeyStore,
    private readonly aliases: KeyAliases,
    private readonly clock: Clock,
    private readonly factsOf: (id: unknown) => Promise<ResourceFacts | undefined>,
  ) {}

  /**
   * Points `name` at `keyId`: creates it, or moves it from the key it names (`createOnly`: 409 instead).
   * Answers the alias and, for a move, the key it left.
   */
  async put(
    name: string,
    keyId: string,
    call: OperationCall,
    createOnly: boolean,
  ): Promise<{ alias: KeyAlias; previousKeyId?: string }> {
    requireAliasName(name);
    const key = await this.store.get(keyId, call.trace);
    if (key.state === 'Destroyed')
      throw new SvcError('IllegalOperation', `key ${keyId} is Destroyed; an alias names a key that is not`);
    for (let attempt = 1; ; attempt++) {
      const current = await this.aliases.resolve(name);
      const alias = { name, keyId, createdAt: this.clock.now().toISOString() };
      if (current === keyId) return { alias };
      if (current !== undefined && createOnly)
        throw new SvcError('IllegalOperation', `${name} already names a key; move it without If-None-Match: *`);
      if (current === undefined) {
        try {
          await this.journaled(call, { resource: keyId, context: { alias: name } }, (record) =>
            this.aliases.create(alias, record).then(() => true),
          );
          return { alias };
        } catch (err) {
          if (!(err instanceof AliasTaken)) throw err;
          if (createOnly) throw new SvcError('IllegalOperation', `${name} already names a key`);
        }
      } else {
        await this.requireMayChange(call, current, name);
        const moved = await this.journaled(
          call,
          { resource: keyId, context: { alias: name, previousKeyId: current } },
          (record) => this.aliases.move(name, current, keyId, record),
        );
        if (moved) return { alias, previousKeyId: current };
      }
      if (attempt >= MAX_ATTEMPTS)
        throw new SvcError('IllegalOperation', `${name} is being changed by other writers; retry`);
    }
  }

  /** The key an alias names now; undefined for text that is no alias, or an alias naming nothing. */
  async keyOf(name: unknown): Promise<string | undefined> {
    return isAlias(name) ? this.aliases.resolve(name) : undefined;
  }

  /**
   * Deletes `name`. The pipeline authorized AddAttribute on the key it named then; the check is made again
   * on the key it names at the delete, which a move may have changed meanwhile.
   */
  async remove(name: string, call: OperationCall): Promise<{ name: string; keyId: string }> {
    requireAliasName(name);
    for (let attempt = 1; ; attempt++) {
      const keyId = await this.aliases.resolve(name);
      if (keyId === undefined) throw new SvcError('NotFound', `${name} names no key`);
      await this.requireMayChange(call, keyId, name);
      const removed = await this.journaled(call, { resource: keyId, context: { alias: name } }, (record) =>
        this.aliases.remove(name, keyId, record),
      );
      if (removed) return { name, keyId };
      if (attempt >= MAX_ATTEMPTS)
        throw new SvcError('IllegalOperation', `${name} is being changed by other writers; retry`);
    }
  }

  /**
   * Aliases of keys the caller may read (Get), by name; `keyId` narrows to one key's. Reads on past aliases
   * the caller may not see until the page is full or the table ends, so aliases of other owners never hide
   * the caller's; `nextAfter` is the last alias shown, so no answer names an alias the caller may not see.
   * A caller that sees few of very many aliases pays for reading past the others (pages of LIST_READ_ROWS).
   */
  async list(
    call: OperationCall,
    filter: { keyId?: string; after?: string; limit: number },
  ): Promise<{ aliases: KeyAlias[]; nextAfter?: string }> {
    const visible: KeyAlias[] = [];
    let after = filter.after;
    for (;;) {
      const rows = Math.max(filter.limit + 1, LIST_READ_ROWS);
      const found = await this.aliases.list({ ...filter, ...(after !== undefined ? { after } : {}), limit: rows });
      for (const alias of found) {
        after = alias.name;
        if (!call.permits('Get', alias.keyId, await this.factsOf(alias.keyId))) continue;
        // One more visible alias than the page holds: there is a next page, which starts after the last shown.
        if (visible.length === filter.limit) return { aliases: visible, nextAfter: visible.at(-1)!.name };
        visible.push(alias);
      }
      if (found.length < rows) return { aliases: visible };
    }
  }

  /** The aliases of each key (for ManagedKey.aliases). */
  aliasesOf(keyIds: string[]): Promise<Map<string, string[]>> {
    return this.aliases.ofKeys(keyIds);
  }

  private async requireMayChange(call: OperationCall, keyId: string, name: string): Promise<void> {
    if (!call.permits('AddAttribute', keyId, await this.factsOf(keyId)))
      throw new SvcError(
        'PermissionDenied',
        `${call.principal.subject} may not change ${name}: AddAttribute is not granted on the key it names`,
      );
  }

  /** Runs a conditional change with the call's success record; the record is the call's when it committed. */
  private async journaled(
    call: OperationCall,
    facts: { resource: string; context: Record<string, string> },
    change: (record: ReturnType<OperationCall['successRecord']>) => Promise<boolean>,
  ): Promise<boolean> {
    const record = call.successRecord(facts);
    const committed = await change(record);
    if (committed) call.journaled(record);
    return committed;
  }
}
