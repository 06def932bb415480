import { isSvcApiError, type SvcClient } from '../sdk/index.ts';

export interface KeyRow {
  id: string;
  name: string;
  algorithm: string;
  state: string;
  currentVersion: number;
  createdAt: string;
}

const PAGE = 1000;
const CONCURRENT_GETS = 8;

/**
 * `keys list`: the service has no list endpoint, so the key ids come from successful
 * Create records in the audit trail (newest first), and each key is then read for its current state.
 */
export async function listKeys(client: SvcClient, opts: { actor?: string; limit: number }): Promise<KeyRow[]> {
  const ids = new Set<string>(); // insertion order: newest Create first
  // Each page seeks from the last one's cursor (`next`); a server without cursors is paged by offset.
  for (let offset = 0, before: string | undefined; ids.size < opts.limit; ) {
    const page = await client.queryAudit({ op: 'Create', actor: opts.actor, limit: PAGE, offset, before });
    for (const r of page.records) {
      // Agent issue is audited as Create too (resource agent:<id>); only key ids are UUIDs without a prefix.
      if (r.outcome === 'Success' && !r.resource.includes(':')) ids.add(r.resource);
    }
    if (!page.hasMore) break;
    if (page.next) before = page.next;
    else offset += PAGE;
  }
  const wanted = [...ids].slice(0, opts.limit);
  const rows: KeyRow[] = new Array(wanted.length);
  let next = 0;
  const worker = async () => {
    while (next < wanted.length) {
      const i = next++;
      rows[i] = await describe(client, wanted[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_GETS, wanted.length) }, worker));
  return rows;
}

async function describe(client: SvcClient, id: string): Promise<KeyRow> {
  try {
    const k = await client.getKey(id);
    return { id, name: k.spec.name, algorithm: k.spec.algorithm, state: k.state, currentVersion: k.currentVersion, createdAt: k.createdAt };
  } catch (err) {
    // The audit trail can outlive the key store (an in-memory journal after a restart): say so, keep listing.
    if (isSvcApiError(err) && err.code === 'KeyNotFound') return { id, name: '', algorithm: '', state: 'NotFound', currentVersion: 0, createdAt: '' };
    throw err;
  }
}
