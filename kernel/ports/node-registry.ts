/**
 * The nodes of a deployment, as the journal knows them, and where each node's audit hash chain stood
 * when it last said so. Kept in the journal, not beside the audit rows, so that someone who can write
 * the audit database alone can neither invent a node (a self-consistent chain under a made-up node id)
 * nor cut the newest rows off a chain unseen: `GET /v1/audit/verify` checks the trail against it.
 */

/** A node's audit chain head as the node recorded it: its newest row at that moment. */
export interface RecordedAuditHead {
  /** The row's id in the audit table. */
  rowId: number;
  hash: string;
  /** When the row's event happened: a head older than the retention period may have been pruned. */
  occurredAt: string;
  /** How many rows the node's chain held up to and including this one. */
  count: number;
  recordedAt: string;
  /**
   * Recorded as the node stopped: its chain ends at this row until the node starts again (and records
   * the head open), so a row after a closed head was written while no process wrote under that node id.
   */
  closed?: boolean;
}

/** The newest row of a node's chain that retention pruning removed: the first row left links to it. */
export interface PrunedAuditRow {
  rowId: number;
  hash: string;
  recordedAt: string;
}

export interface RegisteredNode {
  node: string;
  registeredAt: string;
  /**
   * `boot`: the node registered itself when it started; `upgrade`: found in the audit trail when the registry was first
   * filled.
   */
  origin: 'boot' | 'upgrade';
  head?: RecordedAuditHead;
  pruned?: PrunedAuditRow;
}

/** What the registry took from an audit trail written before it existed (once per journal). */
export interface AuditAdoption {
  adoptedAt: string;
  /** The highest id of the rows written before the hash chain (no node): those are not on any chain. */
  legacyMaxId: number;
}

/**
 * Contract (contracts/node-registry.ts runs it on every journal):
 * - `register` is idempotent: a node registered twice keeps its first registration and its head.
 * - `recordHead` registers the node if needed and replaces its head.
 * - `adopt` registers every given node (origin `upgrade`, unless registered already) and records the
 *   adoption; it happens once: a later `adopt` changes nothing and `adoption()` keeps the first.
 * - `list` answers every registered node, ordered by node id.
 * - `recordPruned` keeps, for a registered node only (a prune must not register a chain someone wrote
 *   under a made-up id), the pruned row with the highest rowId (pruning nodes may record out of order).
 *   `adoptPruned` records the given rows, of registered nodes only, once per journal, like `adopt`.
 */
export interface NodeRegistry {
  register(node: string, at: string): Promise<void>;
  recordHead(node: string, head: RecordedAuditHead): Promise<void>;
  adopt(nodes: string[], legacyMaxId: number, at: string): Promise<void>;
  adoption(): Promise<AuditAdoption | undefined>;
  list(): Promise<RegisteredNode[]>;
  recordPruned(node: string, pruned: PrunedAuditRow): Promise<void>;
  /** Records where chains pruned before the registry kept such rows start (the first start of this version); once. */
  adoptPruned(rows: Array<{ node: string; pruned: PrunedAuditRow }>): Promise<void>;
  prunedAdopted(): Promise<boolean>;
}
