import type { Knex } from 'knex';
import { type AuditEvent, type AuditRecord, chainHash, GENESIS_HASH } from '../../../kernel/index.ts';

/** One svc_audit row as stored. */
export interface AuditRow {
  id?: number;
  event_id: string | null;
  occurred_at: string;
  node?: string | null;
  actor: string;
  actor_kind: string;
  operation: string;
  resource: string;
  outcome: string;
  context: string;
  correlation_id: string;
  /**
   * The context's `agent.promptId`, copied into an indexed column so GET /v1/audit?promptId= seeks; null before
   * migration 005.
   */
  prompt_id?: string | null;
  prev_hash?: string | null;
  hash?: string | null;
}

export const toRow = (r: AuditRecord): AuditRow => ({
  event_id: r.id,
  occurred_at: r.occurredAt,
  actor: r.principal.subject,
  actor_kind: r.principal.kind,
  operation: r.operation,
  resource: r.resource,
  outcome: r.outcome,
  context: JSON.stringify(r.context),
  correlation_id: r.correlationId,
  prompt_id: promptIdColumn(r.context),
});

/**
 * The prompt_id column of a record: its context's `agent.promptId` (the doors refuse one longer than 128
 * characters, the column's width; anything longer is left out of the column rather than failing the write).
 */
export function promptIdColumn(context: Record<string, string>): string | null {
  const id = context['agent.promptId'];
  return id !== undefined && [...id].length <= 128 ? id : null;
}

export const toRecord = (row: AuditRow): AuditRecord => ({
  id: row.event_id ?? `row-${row.id}`,
  occurredAt: row.occurred_at,
  principal: { subject: row.actor, kind: row.actor_kind as AuditRecord['principal']['kind'] },
  operation: row.operation,
  resource: row.resource,
  outcome: row.outcome,
  context: JSON.parse(row.context),
  correlationId: row.correlation_id,
});

/** The canonical event a chained row stands for, as its hash covers it. */
export function eventOf(row: AuditRow): AuditEvent & { prevHash: string } {
  const r = toRecord(row);
  return {
    schemaVersion: 1,
    id: r.id,
    occurredAt: r.occurredAt,
    node: row.node ?? '',
    principal: r.principal,
    operation: r.operation,
    resource: r.resource,
    outcome: r.outcome,
    context: r.context,
    correlationId: r.correlationId,
    prevHash: row.prev_hash ?? '',
  };
}

/** Links rows onto a node's chain, from `head`; returns the new head. */
export function chainRows(rows: AuditRow[], node: string, head: string): string {
  for (const row of rows) {
    row.node = node;
    row.prev_hash = head;
    row.hash = chainHash(eventOf(row));
    head = row.hash;
  }
  return head;
}

/** The hash of a node's newest row: where its chain goes on (the genesis hash for a new node). */
export async function chainHead(db: Knex, node: string): Promise<string> {
  const row = await db('svc_audit').where('node', node).whereNotNull('hash').orderBy('id', 'desc').first('hash');
  return (row?.hash as string | undefined) ?? GENESIS_HASH;
}

/**
 * The nodes that have rows on the audit trail. A plain DISTINCT reads every row on PostgreSQL (it has
 * no skip scan); this walks the (node, id) index from one node to the next, one seek per node.
 */
export async function nodesOnTrail(db: Knex): Promise<string[]> {
  const next = (from: string) => db('svc_audit as a').min('a.node').where('a.node', '>', db.ref(from));
  const rows = (await db
    .withRecursive('chains', ['node'], (q) =>
      q
        .min('node')
        .from('svc_audit')
        .unionAll((step) => step.select(next('chains.node').as('node')).from('chains').whereNotNull('chains.node')),
    )
    .select('node')
    .from('chains')
    .whereNotNull('node')) as Array<{ node: string }>;
  return rows.map((r) => r.node);
}
