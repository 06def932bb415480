import type { Knex } from 'knex';
import {
  type AuditVerification,
  type AuditVerifyQuery,
  chainHash,
  GENESIS_HASH,
  type RegisteredNode,
} from '../../../kernel/index.ts';
import { eventOf, nodesOnTrail, promptIdColumn, type AuditRow } from './audit-chain.ts';

/** The last row a verification checked on a chain: the next one goes on from it. */
export interface VerifiedHead {
  rowId: number;
  hash: string;
  occurredAt: string;
}

/**
 * What a node remembers between verifications: each chain's last verified row, and how far rows without a node were
 * looked for.
 */
export interface VerifiedState {
  heads: Record<string, VerifiedHead>;
  scannedTo: number;
}

export interface ChainVerifyArgs extends AuditVerifyQuery {
  /** The journal's node registry; without it (a sink tested alone) unknown nodes and recorded heads are not checked. */
  registry?: { nodes: RegisteredNode[]; legacyMaxId: number; adoptedAt?: string };
  /** Where the previous verification of this node ended; ignored with `full` or a time window. */
  from?: VerifiedState;
  /** Rows that happened before this were pruned by retention: a recorded head older than it may be gone. */
  pruneBefore?: string;
}

export type ChainVerification = AuditVerification & { state?: VerifiedState };

const PAGE = 5_000;
/** Rows from before the chain were written by older nodes, whose clocks may have been this far ahead. */
const LEGACY_CLOCK_SKEW_MS = 3_600_000;
/**
 * Whether a chain may start at `row`: at the genesis, or right after the newest row retention pruning
 * removed (recorded in the journal before the prune deletes it, so while that row is still there, a
 * prune is under way and the walk goes through it).
 */
async function startsWhereItMay(db: Knex, row: AuditRow, node: string, pruned: string | undefined): Promise<boolean> {
  if (row.prev_hash === GENESIS_HASH || (pruned !== undefined && row.prev_hash === pruned)) return true;
  return pruned !== undefined && (await db('svc_audit').where({ node, hash: pruned }).first('id')) !== undefined;
}

/** A row that is still on `node`'s chain with the hash it had, and whose fields still give that hash. */
export const intact = (row: AuditRow, node: string, hash: string) =>
  row.node === node && row.hash === hash && chainHash(eventOf(row)) === hash;
const idOf = (row: { id?: number | string; event_id?: string | null }) => row.event_id ?? `row-${row.id}`;

/**
 * Walks each node's chain oldest first, in pages by row id (each page its own short read, so a long walk
 * never holds a database snapshot or SQLite's WAL for long), and recomputes every hash. Invalid:
 * - a row whose hash does not match its fields (edited), or whose prevHash is not the previous row's
 *   hash (a row before it removed or inserted); a row with no hash, or no node, after the upgrade;
 * - a chain of a node the journal's registry does not know (nodes register when they start);
 * - a chain that ends before the head its node last recorded in the journal (its newest rows removed),
 *   or whose row there is not that head (the chain rewritten up to it), or that goes on after the head
 *   its node recorded as it stopped (rows added while no process wrote under that node id).
 * - a chain whose first row neither starts it (genesis) nor follows the newest row retention pruning
 *   removed from it (which the pruning node recorded in the journal): its oldest rows were deleted.
 * A window's first row is taken as given (`since` skips what came before). Without `full` or a window, a
 * chain is walked only after the row where the previous verification ended, which must still be there as it was.
 */
export async function verifyChains(db: Knex, q: ChainVerifyArgs): Promise<ChainVerification> {
  const windowed = Boolean(q.since || q.until);
  const from = q.full || windowed ? undefined : q.from;
  const known = q.registry && new Map(q.registry.nodes.map((n) => [n.node, n]));
  const top = Number((await db('svc_audit').max({ top: 'id' }).first())?.top ?? 0);
  const inWindow = (sql: Knex.QueryBuilder) => {
    if (q.since) sql.where('occurred_at', '>=', q.since);
    if (q.until) sql.where('occurred_at', '<', q.until);
    return sql;
  };
  let nodes: string[] = [];
  let checked = 0;
  const broken = (id: string, node: string, reason: string): ChainVerification => ({
    valid: false,
    checked,
    nodes,
    firstBroken: { id, node, reason },
  });

  if (q.node) nodes = [q.node];
  else {
    const stored = await nodesOnTrail(db);
    // A node that recorded a head is checked even when none of its rows are left.
    const recorded = q.registry?.nodes.filter((n) => n.head).map((n) => n.node) ?? [];
    nodes = [...new Set([...stored, ...recorded])].sort();
  }

  if (q.registry && !q.node) {
    // Rows on no chain: only those written before the chain existed, and the registry noted which at the upgrade.
    const after = Math.max(q.registry.legacyMaxId, from?.scannedTo ?? 0);
    const stray = (await inWindow(db('svc_audit').whereNull('node').where('id', '>', after).where('id', '<=', top))
      .orderBy('id')
      .first('id', 'event_id')) as AuditRow | undefined;
    if (stray)
      return broken(idOf(stray), '', 'the row has no node, so it is on no chain: it was written outside the service');
    // Those older rows are on no chain either, but they happened before it existed: one dated after is not one of them.
    if (q.registry.adoptedAt && q.registry.legacyMaxId > 0) {
      const latest = new Date(Date.parse(q.registry.adoptedAt) + LEGACY_CLOCK_SKEW_MS).toISOString();
      const redated = (await db('svc_audit')
        .whereNull('node')
        .where('id', '<=', q.registry.legacyMaxId)
        .where('occurred_at', '>', latest)
        .first('id', 'event_id')) as AuditRow | undefined;
      if (redated)
        return broken(
          idOf(redated),
          '',
          `the row has no node but is dated after the hash chain began (${q.registry.adoptedAt}): a row from before the chain was edited`,
        );
    }
  }

  // Every row of a window comes at or after the window's first row: each chain's walk starts there, not at its first
  // row.
  const windowStart = q.since
    ? Number(
        (await db('svc_audit').where('occurred_at', '>=', q.since).min({ first: 'id' }).first())?.first ?? top + 1,
      ) - 1
    : 0;
  const heads: Record<string, VerifiedHead> = { ...(q.from?.heads ?? {}) };
  for (const node of nodes) {
    const registered = known?.get(node);
    if (known && !registered) {
      const first = (await db('svc_audit').where('node', node).orderBy('id').first('id', 'event_id')) as
        | AuditRow
        | undefined;
      if (first)
        return broken(
          idOf(first),
          node,
          `node ${node} is not in the journal's node registry: no node of this deployment ever started under that id`,
        );
    }

    let previous: string | undefined;
    let after = windowStart;
    const remembered = from?.heads[node];
    if (remembered) {
      const row = (await db('svc_audit').where('id', remembered.rowId).first()) as AuditRow | undefined;
      if (row && intact(row, node, remembered.hash)) {
        previous = remembered.hash;
        after = remembered.rowId;
      } else if (row || !(q.pruneBefore && remembered.occurredAt < q.pruneBefore)) {
        return broken(
          row ? idOf(row) : `row-${remembered.rowId}`,
          node,
          `row ${remembered.rowId}, the last one verified before, was ${row ? 'changed' : 'removed'} since: verify with full=true to find what else changed`,
        );
      }
      // Else retention pruned it: the walk starts over from the oldest row left.
    }

    let last: AuditRow | undefined;
    const page = (from: number): Promise<AuditRow[]> => {
      const rows = inWindow(db('svc_audit').where('node', node).where('id', '>', from))
        .orderBy('id', 'asc')
        .limit(PAGE)
        .then((r: AuditRow[]) => r);
      void rows.catch(() => undefined); // awaited below; a page left unread when the walk stops early may fail unseen
      return rows;
    };
    // The next page is read (on a server database) while this one is hashed.
    for (let pending = page(after); ; ) {
      const rows = await pending;
      if (rows.length === PAGE) pending = page(Number(rows.at(-1)!.id));
      for (const row of rows) {
        checked++;
        if (!row.hash) return broken(idOf(row), node, 'the row has no hash: it was written outside the chain');
        if (
          previous === undefined &&
          !windowed &&
          known &&
          !(await startsWhereItMay(db, row, node, registered?.pruned?.hash))
        ) {
          return broken(
            idOf(row),
            node,
            `the rows before it on node ${node}'s chain were removed, and not by retention pruning (the journal records where each prune left the chain): its oldest rows were deleted`,
          );
        }
        if (previous !== undefined && row.prev_hash !== previous)
          return broken(
            idOf(row),
            node,
            "prevHash is not the previous row's hash: a row before it was removed or inserted",
          );
        const event = eventOf(row);
        if (chainHash(event) !== row.hash) return broken(idOf(row), node, 'hash does not match the row: it was edited');
        // The hash covers the context, not its indexed copy: a copy changed would hide the row from a promptId filter.
        if ((row.prompt_id ?? null) !== promptIdColumn(event.context))
          return broken(idOf(row), node, "prompt_id does not match the row's context agent.promptId: it was edited");
        previous = row.hash;
        last = row;
      }
      if (rows.length < PAGE) break;
    }
    if (!windowed && last) heads[node] = { rowId: Number(last.id), hash: last.hash!, occurredAt: last.occurred_at };

    const recorded = registered?.head;
    if (recorded) {
      const row = (await db('svc_audit').where('id', recorded.rowId).first()) as AuditRow | undefined;
      if (row && !intact(row, node, recorded.hash)) {
        return broken(
          idOf(row),
          node,
          `row ${recorded.rowId} is no longer the head node ${node} recorded there (${recorded.recordedAt}): it was edited, or the chain rewritten up to it`,
        );
      }
      if (!row && !(q.pruneBefore && recorded.occurredAt < q.pruneBefore)) {
        const newest = (await db('svc_audit').where('node', node).orderBy('id', 'desc').first('id', 'event_id')) as
          | AuditRow
          | undefined;
        const end = newest ? `ends at row ${newest.id}` : 'has no rows';
        return broken(
          newest ? idOf(newest) : `row-${recorded.rowId}`,
          node,
          `the chain ${end}, before the head node ${node} recorded at row ${recorded.rowId} (${recorded.count} rows, ${recorded.recordedAt}): its newest rows were removed`,
        );
      }
      if (recorded.closed) {
        // The node recorded this head as it stopped and has not started since: nothing of it can follow.
        const added = (await db('svc_audit')
          .where('node', node)
          .where('id', '>', recorded.rowId)
          .orderBy('id')
          .first('id', 'event_id')) as AuditRow | undefined;
        if (added)
          return broken(
            idOf(added),
            node,
            `the row follows row ${recorded.rowId}, where the chain ended when node ${node} stopped (${recorded.recordedAt}): it was added after node ${node} stopped, not by it`,
          );
      }
    }
  }
  // A window proves nothing about the rows outside it, so it moves no remembered head.
  if (windowed) return { valid: true, checked, nodes };
  return {
    valid: true,
    checked,
    nodes,
    state: { heads, scannedTo: q.registry && !q.node ? top : (q.from?.scannedTo ?? 0) },
  };
}
