import { type AnyOperation, defineOperation } from '../../../kernel/index.ts';
import { KeyPage, LocateKeysQuery } from '../../../schemas/locate.ts';
import { keyView } from '../key-lifecycle.ts';
import type { KeyAliasing } from '../key-aliasing.ts';
import type { KeyLocator } from '../key-locator.ts';

/** The query's filters in a fixed order, each value URI-encoded: the same query always audits the same resource. */
const FILTERS = ['name', 'state', 'algorithm', 'owner', 'createdAfter', 'createdBefore', 'tag'] as const;

export function locateResource(input: Partial<Record<string, unknown>> | undefined): string {
  const parts = FILTERS.flatMap((f) => {
    const value = input?.[f];
    const values = Array.isArray(value) ? value : [value];
    return values.filter((v) => typeof v === 'string' && v !== '').map((v) => `${f}=${encodeURIComponent(v)}`);
  });
  return `pattern:${parts.join('&') || '*'}`;
}

/** GET /v1/keys: find keys by name, state, algorithm, owner and creation time, a page at a time. */
export function locateOperation(locator: KeyLocator, aliasing: KeyAliasing): AnyOperation {
  return defineOperation({
    id: 'LocateKeys',
    operation: 'Locate',
    group: 'Keys',
    summary: 'Find keys by name, state, algorithm, owner and creation time, newest first',
    description:
      'Find keys, newest first: filter by name (exact, or a glob such as ' +
      'payments-*), state, algorithm, owner, tags (tag=KEY:VALUE, repeatable, ' +
      'all must match) and creation time (createdAfter, createdBefore). Answers only keys the caller may read, each as GetKey ' +
      'shows it, limit per page (default 100, at most 1000), and nextCursor ' +
      'while there may be more: pass it as cursor to continue. Use it to find ' +
      'a key id by name. Changes nothing. InvalidField for an unknown filter, ' +
      'a bad date, limit or cursor.',
    input: LocateKeysQuery,
    output: KeyPage,
    http: { method: 'GET', path: '/v1/keys' },
    attributes: { readOnly: true, riskGated: false },
    resource: locateResource,
    handle: async (input, call) => {
      const page = await locator.locate(input, call);
      const aliases = await aliasing.aliasesOf(page.keys.map((key) => key.id));
      return {
        result: {
          keys: page.keys.map((key) => keyView(key, aliases)),
          ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
        },
        audit: {
          context: {
            found: String(page.keys.length),
            checked: String(page.checked),
            ...(input.cursor ? { continued: 'true' } : {}),
          },
        },
      };
    },
  });
}
