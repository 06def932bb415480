import {
  type AnyOperation,
  defineOperation,
  keyResource,
  namedResource,
  type ResourceFacts,
} from '../../../kernel/index.ts';
import * as A from '../../../schemas/aliases.ts';
import type { KeyAliasing } from '../key-aliasing.ts';

/** Aliases: create, move, delete and list `alias/NAME`, each naming one key. */
export function aliasOperations(
  aliasing: KeyAliasing,
  factsOf: (id: unknown) => Promise<ResourceFacts | undefined>,
): AnyOperation[] {
  return [
    defineOperation({
      id: 'PutAlias',
      operation: 'AddAttribute',
      group: 'Aliases',
      summary: 'Create an alias, or move it to another key',
      description:
        'Point alias/NAME at a key: creates the alias, or moves it from the ' +
        'key it names (which needs AddAttribute on both keys). With ' +
        'createOnly:true an alias that exists is 409 instead of moved. Aliases ' +
        'are unique per deployment; wherever a key id is accepted, alias/NAME ' +
        'is too (alias%2FNAME in a path), resolved at each call. A Destroyed ' +
        'key takes no alias and loses its own.',
      errors: ['KeyNotFound', 'IllegalOperation'],
      input: A.PutAliasInput,
      output: A.PutAliasResponse,
      http: { method: 'PUT', path: '/v1/aliases/:name' },
      keyRefs: ['keyId'],
      resource: (input) => keyResource(input?.keyId),
      resourceFacts: (input) => factsOf(input?.keyId),
      handle: async (input, call) => {
        const { alias, previousKeyId } = await aliasing.put(input.name, input.keyId, call, input.createOnly === true);
        return {
          result: { ...alias, ...(previousKeyId ? { previousKeyId } : {}) },
          audit: { context: { alias: alias.name } },
        };
      },
    }),
    defineOperation({
      id: 'DeleteAlias',
      operation: 'AddAttribute',
      group: 'Aliases',
      summary: 'Delete an alias',
      description:
        'Delete alias/NAME (the key it names is unchanged). Needs ' +
        'AddAttribute on that key. NotFound when the alias names no key.',
      errors: ['NotFound'],
      input: A.AliasRef,
      output: A.DeleteAliasResponse,
      http: { method: 'DELETE', path: '/v1/aliases/:name' },
      resource: (input) => namedResource('', input?.name),
      // The key the alias names now: authorized like any change of that key (an unknown alias names none).
      resourceFacts: async (input) => factsOf(await aliasing.keyOf(input?.name)),
      handle: async (input, call) => ({ result: await aliasing.remove(input.name, call) }),
    }),
    defineOperation({
      id: 'ListAliases',
      operation: 'Get',
      group: 'Aliases',
      summary: 'List aliases, by name',
      description:
        'List aliases by name, those of one key with keyId, a page at a time ' +
        '(after: the nextAfter of the previous page, present while there may ' +
        'be more). Only aliases of keys the caller may read. Changes nothing.',
      input: A.ListAliasesQuery,
      output: A.AliasList,
      http: { method: 'GET', path: '/v1/aliases' },
      keyRefs: ['keyId'],
      // Without keyId, like Locate: any grant of Get on some key lists; each alias is then checked on its key.
      resource: (input) => (input?.keyId === undefined ? 'pattern:alias' : keyResource(input.keyId)),
      resourceFacts: (input) => (input?.keyId === undefined ? Promise.resolve(undefined) : factsOf(input.keyId)),
      attributes: { readOnly: true },
      handle: async (input, call) => ({
        result: await aliasing.list(call, {
          ...(input.keyId !== undefined ? { keyId: input.keyId } : {}),
          ...(input.after !== undefined ? { after: input.after } : {}),
          limit: input.limit ?? 100,
        }),
      }),
    }),
  ];
}
