import type { Knex } from 'knex';
import type {
  AuditAdoption,
  NodeRegistry,
  PrunedAuditRow,
  RecordedAuditHead,
  RegisteredNode,
} from '../../../kernel/index.ts';
import { retryWhileBusy } from '../../sql-support/retry-while-busy.ts';
import { isUniqueViolation } from '../../sql-support/unique-violation.ts';

interface NodeRow {
  node: string;
  registered_at: string;
  origin: string;
  head_row_id: number | string | null;
  head_hash: string | null;
  head_occurred_at: string | null;
  head_count: number | string | null;
  head_recorded_at: string | null;
  head_closed: boolean | number | string | null;
  pruned_row_id: number | string | null;
  pruned_hash: string | null;
  pruned_recorded_at: string | null;
}

const toNode = (r: NodeRow): RegisteredNode => ({
  node: r.node,
  registeredAt: r.registered_at,
  origin: r.origin === 'upgrade' ? 'upgrade' : 'boot',
  ...(r.head_row_id !== null && r.head_hash
    ? {
        head: {
          rowId: Number(r.head_row_id),
          hash: r.head_hash,
          occurredAt: r.head_occurred_at ?? '',
          count: Number(r.head_count ?? 0),
          recordedAt: r.head_recorded_at ?? '',
          ...(closed(r.head_closed) ? { closed: true } : {}),
        },
      }
    : {}),
  // An operator may set pruned_hash alone (docs/audit-export.md): the row id then counts as 0.
  ...(r.pruned_hash
    ? { pruned: { rowId: Number(r.pruned_row_id ?? 0), hash: r.pruned_hash, recordedAt: r.pruned_recorded_at ?? '' } }
    : {}),
});

/** The svc_node_adoption row that says pruned rows were recorded for the chains already on the trail. */
const PRUNED_ADOPTION = 'audit-pruned';

const headColumns = (head: RecordedAuditHead) => ({
  head_row_id: head.rowId,
  head_hash: head.hash,
  head_occurred_at: head.occurredAt,
  head_count: head.count,
  head_recorded_at: head.recordedAt,
  head_closed: head.closed === true,
});

/** PostgreSQL answers a boolean, SQLite and MySQL 0 or 1. */
const closed = (value: NodeRow['head_closed']): boolean => value === true || Number(value) === 1;

/** The node registry in the journal's database (tables svc_nodes and svc_node_adoption). */
export class KnexNodeRegistry implements NodeRegistry {
  constructor(private readonly run: <T>(work: (db: Knex) => Promise<T>) => Promise<T>) {}

  async register(node: string, at: string): Promise<void> {
    await this.run((db) =>
      db('svc_nodes').insert({ node, registered_at: at, origin: 'boot' }).onConflict('node').ignore(),
    );
  }

  async recordHead(node: string, head: RecordedAuditHead): Promise<void> {
    const columns = headColumns(head);
    await this.run((db) =>
      db('svc_nodes')
        .insert({ node, registered_at: head.recordedAt, origin: 'boot', ...columns })
        .onConflict('node')
        .merge(Object.keys(columns)),
    );
  }

  async adopt(nodes: string[], legacyMaxId: number, at: string): Promise<void> {
    try {
      await retryWhileBusy(() =>
        this.run((db) =>
          db.transaction(async (trx) => {
            if (await trx('svc_node_adoption').where({ name: 'audit' }).first()) return;
            for (const node of nodes)
              await trx('svc_nodes').insert({ node, registered_at: at, origin: 'upgrade' }).onConflict('node').ignore();
            await trx('svc_node_adoption').insert({ name: 'audit', adopted_at: at, legacy_max_id: legacyMaxId });
          }),
        ),
      );
    } catch (err) {
      // Another node adopted at the same moment: its adoption stands, and it registered the same nodes.
      if (!isUniqueViolation(err)) throw err;
    }
  }

  async adoption(): Promise<AuditAdoption | undefined> {
    const row = (await this.run((db) => db('svc_node_adoption').where({ name: 'audit' }).first())) as
      | { adopted_at: string; legacy_max_id: number | string }
      | undefined;
    return row && { adoptedAt: row.adopted_at, legacyMaxId: Number(row.legacy_max_id) };
  }

  async recordPruned(node: string, pruned: PrunedAuditRow): Promise<void> {
    await this.run(async (db) => {
      // Only forward: a node that pruned a little earlier may record after one that pruned further.
      const columns = { pruned_row_id: pruned.rowId, pruned_hash: pruned.hash, pruned_recorded_at: pruned.recordedAt };
      await db('svc_nodes')
        .where({ node })
        .where((q) => q.whereNull('pruned_row_id').orWhere('pruned_row_id', '<', pruned.rowId))
        .update(columns);
    });
  }

  async adoptPruned(rows: Array<{ node: string; pruned: PrunedAuditRow }>): Promise<void> {
    const at = rows[0]?.pruned.recordedAt ?? new Date().toISOString();
    try {
      await retryWhileBusy(() =>
        this.run((db) =>
          db.transaction(async (trx) => {
            if (await trx('svc_node_adoption').where({ name: PRUNED_ADOPTION }).first()) return;
            for (const { node, pruned } of rows) {
              const columns = {
                pruned_row_id: pruned.rowId,
                pruned_hash: pruned.hash,
                pruned_recorded_at: pruned.recordedAt,
              };
              await trx('svc_nodes').where({ node }).update(columns);
            }
            await trx('svc_node_adoption').insert({ name: PRUNED_ADOPTION, adopted_at: at, legacy_max_id: 0 });
          }),
        ),
      );
    } catch (err) {
      // Another node adopted at the same moment: its adoption stands.
      if (!isUniqueViolation(err)) throw err;
    }
  }

  async prunedAdopted(): Promise<boolean> {
    return (await this.run((db) => db('svc_node_adoption').where({ name: PRUNED_ADOPTION }).first())) !== undefined;
  }

  async list(): Promise<RegisteredNode[]> {
    const rows = (await this.run((db) => db<NodeRow>('svc_nodes').select())) as NodeRow[];
    // Sorted here, by code point: the databases' collations order text differently.
    return rows.map(toNode).sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  }
}
