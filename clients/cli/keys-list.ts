import type { KeyQuery, SvcClient } from '../sdk/index.ts';

export interface KeyRow {
  id: string;
  name: string;
  algorithm: string;
  state: string;
  currentVersion: number;
  owner: string;
  createdAt: string;
  /** false while the key is disabled (keys disable): it keeps its state but serves nothing. */
  enabled: boolean;
  tags: Record<string, string>;
}

const PAGE = 1000;

/**
 * `keys list`: the keys the caller may read (GET /v1/keys), newest first, every page in turn until
 * there is none left or `max` keys were given. Rows are yielded as pages arrive, so a long list starts
 * printing at once and never sits in memory whole.
 */
export async function* listKeys(
  client: SvcClient,
  filter: Omit<KeyQuery, 'cursor' | 'limit'>,
  max?: number,
): AsyncGenerator<KeyRow> {
  let given = 0;
  for await (const page of client.keyPages({ ...filter, limit: max === undefined ? PAGE : Math.min(PAGE, max) })) {
    for (const k of page.keys) {
      if (max !== undefined && given >= max) return;
      given++;
      yield {
        id: k.id,
        name: k.spec.name,
        algorithm: k.spec.algorithm,
        state: k.state,
        currentVersion: k.currentVersion,
        owner: k.owner,
        createdAt: k.createdAt,
        enabled: k.enabled,
        tags: k.tags,
      };
    }
    if (max !== undefined && given >= max) return;
  }
}
