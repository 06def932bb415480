import type { Knex } from 'knex';
import { nodesOnTrail } from './audit-chain.ts';

/** The newest row of a chain that a prune removed (its hash is what the first row left links to). */
export interface PrunedRow {
  rowId: number;
  hash: string;
}

/**
 * Retention pruning that removes whole prefixes of each node's chain: every row before the first one
 * that happened at or after `cutoff`. A row written late with an older time (an outbox relay after an
 * outage) is kept until the rows before it go, so no chain loses a row in its middle. Before deleting,
 * the newest row about to go is handed to `remember` (the journal's node registry), so verification can
 * tell this prune from someone deleting a chain's oldest rows: the first row left must link to it.
 * Rows written before the chain existed (no node) are pruned by time alone.
 */
export async function pruneChains(
  db: Knex,
  cutoff: string,
  remember?: (node: string, row: PrunedRow) => Promise<void>,
): Promise<number> {
  let removed = 0;
  const nodes = await nodesOnTrail(db);
  for (const node of nodes) {
    const kept = (await db('svc_audit')
      .where('node', node)
      .where('occurred_at', '>=', cutoff)
      .orderBy('id', 'asc')
      .first('id')) as { id: number | string } | undefined;
    const older = db('svc_audit').where('node', node);
    if (kept) older.where('id', '<', kept.id);
    const last = (await older.orderBy('id', 'desc').first('id', 'hash')) as
      | { id: number | string; hash: string | null }
      | undefined;
    if (!last) continue;
    if (last.hash && remember) await remember(node, { rowId: Number(last.id), hash: last.hash });
    removed += await db('svc_audit').where('node', node).where('id', '<=', last.id).delete();
  }
  return removed + (await db('svc_audit').whereNull('node').where('occurred_at', '<', cutoff).delete());
}
