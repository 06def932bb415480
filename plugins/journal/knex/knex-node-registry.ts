import type { Knex } from 'knex';
import type { AuditAdoption, NodeRegistry, RecordedAuditHead, RegisteredNode } from '../../../kernel/ports/node-registry.ts';
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
}

const toNode = (r: NodeRow): RegisteredNode => ({
  node: r.node,
  registeredAt: r.registered_at,
  origin: r.origin === 'upgrade' ? 'upgrade' : 'boot',
  ...(r.head_row_id !== null && r.head_hash
    ? { head: { rowId: Number(r.head_row_id), hash: r.head_hash, occurredAt: r.head_occurred_at ?? '', count: Number(r.head_count ?? 0), recordedAt: r.head_recorded_at ?? '', ...(closed(r.head_closed) ? { closed: true } : {}) } }
    : {}),
});

const headColumns = (head: RecordedAuditHead) => ({
  head_row_id: head.rowId, head_hash: head.hash, head_occurred_at: head.occurredAt, head_count: head.count, head_recorded_at: head.recordedAt, head_closed: head.closed === true,
});

/** PostgreSQL answers a boolean, SQLite and MySQL 0 or 1. */
const closed = (value: NodeRow['head_closed']): boolean => value === true || Number(value) === 1;

/** The node registry in the journal's database (tables svc_nodes and svc_node_adoption). */
export class KnexNodeRegistry implements NodeRegistry {
  constructor(private readonly run: <T>(work: (db: Knex) => Promise<T>) => Promise<T>) {}

  async register(node: string, at: string): Promise<void> {
    await this.run((db) => db('svc_nodes').insert({ node, registered_at: at, origin: 'boot' }).onConflict('node').ignore());
  }

  async recordHead(node: string, head: RecordedAuditHead): Promise<void> {
    const columns = headColumns(head);
    await this.run((db) => db('svc_nodes').insert({ node, registered_at: head.recordedAt, origin: 'boot', ...columns }).onConflict('node').merge(Object.keys(columns)));
  }

  async adopt(nodes: string[], legacyMaxId: number, at: string): Promise<void> {
    try {
      await this.run((db) => db.transaction(async (trx) => {
        if (await trx('svc_node_adoption').where({ name: 'audit' }).first()) return;
        for (const node of nodes) await trx('svc_nodes').insert({ node, registered_at: at, origin: 'upgrade' }).onConflict('node').ignore();
        await trx('svc_node_adoption').insert({ name: 'audit', adopted_at: at, legacy_max_id: legacyMaxId });
      }));
    } catch (err) {
      // Another node adopted at the same moment: its adoption stands, and it registered the same nodes.
      if (!isUniqueViolation(err)) throw err;
    }
  }

  async adoption(): Promise<AuditAdoption | undefined> {
    const row = await this.run((db) => db('svc_node_adoption').where({ name: 'audit' }).first()) as { adopted_at: string; legacy_max_id: number | string } | undefined;
    return row && { adoptedAt: row.adopted_at, legacyMaxId: Number(row.legacy_max_id) };
  }

  async list(): Promise<RegisteredNode[]> {
    const rows = (await this.run((db) => db<NodeRow>('svc_nodes').select())) as NodeRow[];
    // Sorted here, by code point: the databases' collations order text differently.
    return rows.map(toNode).sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  }
}
