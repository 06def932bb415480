import type { Knex } from 'knex';
import {
  type Clock,
  GENESIS_HASH,
  type Logger,
  type NodeRegistry,
  type RecordedAuditHead,
} from '../../../kernel/index.ts';
import { nodesOnTrail, type AuditRow } from './audit-chain.ts';
import { intact, type ChainVerifyArgs } from './chain-verification.ts';
import type { PrunedRow } from './chain-prune.ts';

/** A node records its chain's head in the journal after this many rows (and when it stops). */
export const RECORD_EVERY = 1000;

/**
 * This node's side of the journal's node registry: it registers the node at start (and, once per
 * journal, the nodes an older audit trail already holds), and records where its chain stands every
 * RECORD_EVERY rows and at stop, so that verification sees rows removed from the chain's end.
 *
 * A head is never recorded from what the audit database says at start: had someone cut the chain while
 * the node was down, that would approve the cut. If the chain at start no longer holds the recorded
 * head, the node says so and records no further head, so verification keeps reporting the cut.
 *
 * The head recorded at stop is closed: the chain ends there while no process writes under this node id,
 * so rows an insider chains on meanwhile (the hash function is public) are after a closed head, which
 * verification reports. At start the node records the head open again only when its chain still ends
 * exactly there; otherwise it says so and leaves it closed (recording none further), so the rows added
 * while it was down stay reported after its own new rows follow them.
 */
export class ChainHeadRecorder {
  private count = 0;
  private unrecorded = 0;
  private last: AuditRow | undefined;
  /** The row id of `last` when already known (a row read back at start); else looked up by its event id. */
  private lastRowId: number | undefined;
  private recording: Promise<void> = Promise.resolve();
  private held = false;
  private stopping = false;

  constructor(
    private readonly registry: NodeRegistry,
    private readonly node: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async start(db: Knex, pruneBefore: string | undefined): Promise<void> {
    const now = this.clock.now().toISOString();
    if (!(await this.registry.adoption())) {
      // The first start with a registry: the nodes already on the audit trail (an upgrade from 0.2) are adopted once.
      const nodes = await nodesOnTrail(db);
      const legacy = (await db('svc_audit').whereNull('node').max({ top: 'id' }).first()) as
        | { top: number | string | null }
        | undefined;
      await this.registry.adopt(nodes, Number(legacy?.top ?? 0), now);
    }
    if (!(await this.registry.prunedAdopted())) {
      // The first start of a version that records prunes: chains already pruned start where they start now, once.
      const nodes = await nodesOnTrail(db);
      const rows: Array<{ node: string; pruned: { rowId: number; hash: string; recordedAt: string } }> = [];
      for (const node of nodes) {
        const first = (await db('svc_audit').where('node', node).orderBy('id', 'asc').first('id', 'prev_hash')) as
          | AuditRow
          | undefined;
        if (first?.prev_hash && first.prev_hash !== GENESIS_HASH)
          rows.push({ node, pruned: { rowId: Number(first.id) - 1, hash: first.prev_hash, recordedAt: now } });
      }
      await this.registry.adoptPruned(rows);
    }
    await this.registry.register(this.node, now);
    const counted = (await db('svc_audit').where('node', this.node).count({ n: '*' }).first()) as
      | { n: number | string }
      | undefined;
    this.count = Number(counted?.n ?? 0);
    const head = (await this.registry.list()).find((n) => n.node === this.node)?.head;
    if (head && !(await holds(db, this.node, head, pruneBefore))) {
      this.held = true;
      this.logger.error(
        'the audit chain of this node no longer holds the head it recorded; ' +
          'verification reports it, and no new head is recorded until an operator clears it',
        { node: this.node, rowId: head.rowId, recordedAt: head.recordedAt },
      );
      return;
    }
    if (!head) return;
    const newest = (await db('svc_audit').where('node', this.node).orderBy('id', 'desc').first()) as
      | AuditRow
      | undefined;
    const endsAtHead = newest !== undefined && Number(newest.id) === head.rowId;
    if (head.closed && newest && !endsAtHead) {
      this.held = true;
      this.logger.error(
        'rows were added to the audit chain of this node while it was stopped; ' +
          'verification reports them, and no new head is recorded until an ' +
          'operator clears it',
        { node: this.node, rowId: head.rowId, recordedAt: head.recordedAt, newestRowId: Number(newest.id) },
      );
      return;
    }
    // The chain ends at the recorded head itself, so a stop without writes may close it there.
    if (endsAtHead) {
      this.last = newest;
      this.lastRowId = head.rowId;
    }
    // Open again before this node writes a row after it.
    if (head.closed) await this.registry.recordHead(this.node, { ...head, closed: false, recordedAt: now });
  }

  /** Rows this node just committed to its chain, oldest first. */
  wrote(db: Knex, rows: AuditRow[]): void {
    this.count += rows.length;
    this.unrecorded += rows.length;
    this.last = rows.at(-1);
    this.lastRowId = undefined;
    // A row written while stopping (a batch that was under way) moves the closed head along.
    if (this.unrecorded >= RECORD_EVERY || this.stopping) this.record(db);
  }

  /**
   * Records the newest row as the closed head (no row may follow it until the next start); waits for recordings under
   * way.
   */
  async stop(db: Knex): Promise<void> {
    this.stopping = true;
    this.record(db);
    await this.recording;
  }

  /** Records, before a prune deletes it, the newest row of a chain the prune removes. */
  async pruned(node: string, row: PrunedRow): Promise<void> {
    await this.registry.recordPruned(node, { ...row, recordedAt: this.clock.now().toISOString() });
  }

  /** What verification checks the trail against. */
  async view(): Promise<ChainVerifyArgs['registry']> {
    const adoption = await this.registry.adoption();
    return {
      nodes: await this.registry.list(),
      legacyMaxId: adoption?.legacyMaxId ?? 0,
      ...(adoption ? { adoptedAt: adoption.adoptedAt } : {}),
    };
  }

  private record(db: Knex): void {
    const row = this.last;
    const knownId = this.lastRowId;
    const count = this.count;
    const closed = this.stopping;
    this.unrecorded = 0;
    if (this.held || !row?.event_id || !row.hash) return;
    // One after another, so an older head never overwrites a newer one.
    this.recording = this.recording
      .then(async () => {
        const stored =
          knownId !== undefined
            ? { id: knownId }
            : ((await db('svc_audit').where('event_id', row.event_id).first('id')) as
                | { id: number | string }
                | undefined);
        if (!stored) return;
        await this.registry.recordHead(this.node, {
          rowId: Number(stored.id),
          hash: row.hash!,
          occurredAt: row.occurred_at,
          count,
          recordedAt: this.clock.now().toISOString(),
          ...(closed ? { closed } : {}),
        });
      })
      .catch((err) =>
        this.logger.warn('recording the audit chain head in the journal failed; the next one will', {
          error: (err as Error).message,
        }),
      );
  }
}

/** True when the chain still holds a recorded head (or retention pruned it). */
async function holds(
  db: Knex,
  node: string,
  head: RecordedAuditHead,
  pruneBefore: string | undefined,
): Promise<boolean> {
  const row = (await db('svc_audit').where('id', head.rowId).first()) as AuditRow | undefined;
  if (row) return intact(row, node, head.hash);
  return pruneBefore !== undefined && head.occurredAt < pruneBefore;
}
