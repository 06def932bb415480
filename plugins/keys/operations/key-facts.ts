import { type AnyOperation, ownerOf, type Principal, type ResourceFacts } from '../../../kernel/index.ts';

type FactsOf = (id: unknown) => Promise<ResourceFacts | undefined>;

/**
 * Gives every key operation the facts key-scoped policy bindings read: for CreateKey the key about to
 * be made (its requested name, owned by the caller), for operations on `:id` the stored key's.
 */
export function withKeyFacts(operations: AnyOperation[], factsOf: FactsOf): AnyOperation[] {
  return operations.map((op): AnyOperation => {
    if (op.id === 'CreateKey') {
      return {
        ...op,
        resourceFacts: async (input: { spec?: { name?: unknown } } | undefined, principal: Principal) => ({
          name: typeof input?.spec?.name === 'string' ? input.spec.name : '',
          owner: ownerOf(principal),
          ...(principal.kind === 'Service' && principal.tenant ? { tenant: principal.tenant } : {}),
        }),
      };
    }
    const properties = (op.input as { properties?: Record<string, unknown> }).properties ?? {};
    if (!('id' in properties)) return op;
    // Where a key id goes, an alias may go too (the pipeline resolves it).
    const keyRefs = 'destinationKeyId' in properties ? ['id', 'destinationKeyId'] : ['id'];
    return { ...op, keyRefs, resourceFacts: (input: { id?: unknown } | undefined) => factsOf(input?.id) };
  });
}
