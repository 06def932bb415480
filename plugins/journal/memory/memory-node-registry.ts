import type {
  AuditAdoption,
  NodeRegistry,
  PrunedAuditRow,
  RecordedAuditHead,
  RegisteredNode,
} from '../../../kernel/index.ts';

/**
 * The node registry of the in-memory journal: lost on restart, so after one the registry adopts the
 * audit trail's nodes again. It guards a chain only for the life of the process, like the keys it sits beside.
 */
export class MemoryNodeRegistry implements NodeRegistry {
  private readonly nodes = new Map<string, RegisteredNode>();
  private adopted: AuditAdoption | undefined;
  private prunedRowsAdopted = false;

  async register(node: string, at: string): Promise<void> {
    if (!this.nodes.has(node)) this.nodes.set(node, { node, registeredAt: at, origin: 'boot' });
  }

  async recordHead(node: string, head: RecordedAuditHead): Promise<void> {
    await this.register(node, head.recordedAt);
    const { closed, ...open } = head;
    this.nodes.get(node)!.head = closed === true ? { ...open, closed } : open;
  }

  async adopt(nodes: string[], legacyMaxId: number, at: string): Promise<void> {
    if (this.adopted) return;
    for (const node of nodes)
      if (!this.nodes.has(node)) this.nodes.set(node, { node, registeredAt: at, origin: 'upgrade' });
    this.adopted = { adoptedAt: at, legacyMaxId };
  }

  async adoption(): Promise<AuditAdoption | undefined> {
    return this.adopted && { ...this.adopted };
  }

  async recordPruned(node: string, pruned: PrunedAuditRow): Promise<void> {
    const entry = this.nodes.get(node);
    if (entry && (!entry.pruned || entry.pruned.rowId < pruned.rowId)) entry.pruned = { ...pruned };
  }

  async adoptPruned(rows: Array<{ node: string; pruned: PrunedAuditRow }>): Promise<void> {
    if (this.prunedRowsAdopted) return;
    for (const { node, pruned } of rows) {
      const entry = this.nodes.get(node);
      if (entry) entry.pruned = { ...pruned };
    }
    this.prunedRowsAdopted = true;
  }

  async prunedAdopted(): Promise<boolean> {
    return this.prunedRowsAdopted;
  }

  async list(): Promise<RegisteredNode[]> {
    return [...this.nodes.values()]
      .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0))
      .map((n) => structuredClone(n));
  }
}
