import type { Knex } from 'knex';
import {
  type AuditChainLink,
  type AuditPage,
  type AuditQuery,
  type AuditRecord,
  type AuditSink,
  type AuditVerification,
  type AuditVerifyQuery,
  type Clock,
  GroupCommit,
  type Logger,
  type NodeRegistry,
  SvcError,
} from '../../../kernel/index.ts';
import { connectAndMigrate } from '../../sql-support/connect.ts';
import { unlessUnavailable } from '../../sql-support/unavailable.ts';
import type { KnexSettings } from '../../sql-support/knex-settings.ts';
import { SQLITE_COMMIT_INTERVAL_MS, SQLITE_FULL_BATCH, SqliteRowWriter } from '../../sql-support/sqlite-row-writer.ts';
import { isUniqueViolation } from '../../sql-support/unique-violation.ts';
import { chainHead, chainRows, toRow, type AuditRow } from './audit-chain.ts';
import { AuditReader } from './reader-client.ts';
import { READER_NICENESS } from './reader-priority.ts';
import { ChainHeadRecorder } from './chain-head-recorder.ts';
import { pruneChains } from './chain-prune.ts';
import type { VerifiedState } from './chain-verification.ts';
import { auditMigrations } from './audit-migrations.ts';

const DAY_MS = 86_400_000;
/** How long a stop waits for a batch being written before it records the chain's closing head. */
const SETTLE_MS = 3_000;
/**
 * On SQLite, a write that succeeded this recently answers the readiness probe: the file could be written
 * then. Without it every /readyz, anonymous ones included, was a commit and its fsync on the request
 * thread, so a caller looping /readyz slowed every other. Any failed write makes the next probe write.
 */
export const PROBE_REUSE_MS = 1_000;
/**
 * With audit.commitIntervalMs above 0, this many waiting records commit without waiting out the interval: clients
 * that keep many requests open are not held to one batch an interval (GroupCommit's fullBatch). Measured on
 * PostgreSQL with 50 connections: the same rate with a 2 ms interval as without.
 */
export const SERVER_FULL_BATCH = 24;

/**
 * A queryable SQL audit sink with daily retention pruning whose rows form one hash chain
 * per node (audit-chain.ts). A record is stored once per event id; a batch the database refuses is
 * retried record by record (GroupCommit), so one record can never fail another request's write. Batches
 * are written one after another, which is what lets each one continue the chain from the last.
 */
export class KnexAuditSink implements AuditSink {
  private db: Knex | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private head = '';
  // Two reader threads: one for single pages (GET /v1/audit), one at a lower CPU priority for long reads
  // (verification, advisor windows), so those never crowd out either the pages or the request path.
  private reader: AuditReader | undefined;
  private background: AuditReader | undefined;
  /** On SQLite, the thread that commits the batches, so no fsync holds the request thread (sqlite-row-writer.ts). */
  private writer: SqliteRowWriter | undefined;
  private readonly recorder: ChainHeadRecorder | undefined;
  /** Where this node's last verification ended on each chain: the next one goes on from there. */
  private verified: VerifiedState | undefined;
  /** The batch being written now, if any (one at a time: GroupCommit writes them one after another). */
  private inserting: Promise<void> | undefined;
  /** Set once the chain's closing head is taken: no batch may follow it. */
  private closing = false;
  /** When (clock ms) a write last succeeded; -Infinity after a failed one. */
  private lastStoredAt = Number.NEGATIVE_INFINITY;
  // Concurrent requests' records go in as one multi-row INSERT; each request waits for its commit.
  private readonly rows: GroupCommit<{ row: AuditRow; stored?: boolean }>;

  constructor(
    private readonly settings: KnexSettings,
    private readonly retentionDays: number,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** This node's id: its rows form their own chain. */
    private readonly node = 'node',
    /**
     * The journal's node registry; without it (a sink tested alone) verification cannot see unknown nodes or a cut
     * chain end.
     */
    nodes?: NodeRegistry,
    /** On a database server, how far apart commits start (audit.commitIntervalMs); SQLite's are fixed. */
    { commitIntervalMs = 0 }: { commitIntervalMs?: number } = {},
  ) {
    this.recorder = nodes && new ChainHeadRecorder(nodes, node, clock, logger);
    // On SQLite each commit is an fsync this process pays for: commits are spaced, unless a batch is full (see GroupCommit).
    this.rows =
      settings.recipe?.kind === 'sqlite'
        ? new GroupCommit((batch) => this.insert(batch), 500, SQLITE_COMMIT_INTERVAL_MS, SQLITE_FULL_BATCH)
        : new GroupCommit((batch) => this.insert(batch), 500, commitIntervalMs, SERVER_FULL_BATCH);
  }

  async start(): Promise<void> {
    if (!this.settings.recipe)
      throw new Error(`the audit sink's settings for ${this.settings.describe} have no recipe for its reader worker`);
    this.db = await connectAndMigrate(this.settings, auditMigrations, 'svc_audit_migrations');
    this.closing = false;
    this.head = await chainHead(this.db, this.node);
    this.reader = new AuditReader(this.settings.recipe, this.logger);
    this.background = new AuditReader(this.settings.recipe, this.logger, READER_NICENESS);
    const recipe = this.settings.recipe;
    if (recipe.kind === 'sqlite')
      this.writer = new SqliteRowWriter(
        recipe.file,
        (message, fields) => this.logger.warn(message, fields),
        recipe.walSizeLimitBytes,
      );
    await this.recorder?.start(this.db, this.pruneBefore());
    if (this.retentionDays > 0) {
      await this.prune();
      this.pruneTimer = setInterval(
        () =>
          void this.prune().catch((err) => this.logger.warn('audit pruning failed', { error: (err as Error).message })),
        DAY_MS,
      );
      this.pruneTimer.unref();
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.pruneTimer);
    await Promise.all([this.reader?.stop(), this.background?.stop()]);
    // The head recorded at stop closes the chain: a batch still being written must be in it first.
    await this.writesSettled();
    this.closing = true;
    await this.writer?.stop();
    this.writer = undefined;
    if (this.db) await this.recorder?.stop(this.db);
    const db = this.db;
    this.db = undefined;
    await db?.destroy();
  }

  /** A write, not a read: a store that answers but cannot be written (a full disk) is not ready. */
  async probe(): Promise<void> {
    const now = this.clock.now();
    const since = now.getTime() - this.lastStoredAt;
    // Only a file: a database server can go away between two writes, and its probe costs the request thread nothing.
    if (this.settings.recipe?.kind === 'sqlite' && since >= 0 && since < PROBE_REUSE_MS) return;
    await this.stored(() =>
      this.knex()('svc_audit_probe').insert({ id: 1, checked_at: now.toISOString() }).onConflict('id').merge(),
    );
  }

  /** Runs a write and notes whether it succeeded, for probe(). */
  private async stored<T>(write: () => Promise<T>): Promise<T> {
    try {
      const result = await this.run(write);
      this.lastStoredAt = this.clock.now().getTime();
      return result;
    } catch (err) {
      this.lastStoredAt = Number.NEGATIVE_INFINITY;
      throw err;
    }
  }

  async write(r: AuditRecord): Promise<AuditChainLink | undefined> {
    const item = { row: toRow(r), stored: false };
    await this.rows.add(item);
    return item.stored ? { prevHash: item.row.prev_hash!, hash: item.row.hash! } : undefined;
  }

  /**
   * Runs in the reader worker: a verification reads and hashes every row, off the request path. It goes
   * on from where this node's last one ended (unless `full` or a window), and checks the trail against
   * the journal's node registry.
   */
  async verify(q: AuditVerifyQuery): Promise<AuditVerification> {
    const registry = await this.recorder?.view();
    const { state, ...report } = await this.readerOf(true).request('verify', {
      ...q,
      registry,
      from: this.verified,
      pruneBefore: this.pruneBefore(),
    });
    if (state) this.verified = state;
    return report;
  }

  /** Writes one batch (insertBatch) and keeps track of it until it settles, for stop. */
  private insert(batch: Array<{ row: AuditRow; stored?: boolean }>): Promise<void> {
    const insert = this.insertBatch(batch);
    const settled: Promise<void> = insert
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        if (this.inserting === settled) this.inserting = undefined;
      });
    this.inserting = settled;
    return insert;
  }

  /**
   * Waits until no batch is being written, including one that records handed over just now start (a few rounds at
   * most).
   */
  private async writesSettled(): Promise<void> {
    // Bounded: a batch stuck on an unreachable database must not hold up the stop (it fails anyway).
    const deadline = Date.now() + SETTLE_MS;
    for (let round = 0; round < 20 && Date.now() < deadline; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      if (!this.inserting) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.inserting,
        new Promise((resolve) => (timer = setTimeout(resolve, deadline - Date.now()))),
      ]).finally(() => clearTimeout(timer));
    }
  }

  /**
   * Chains and inserts one batch; the head moves only once the INSERT (atomic) succeeded. A record
   * already stored (relayed twice from the outbox) is a unique violation: alone, it counts as written.
   */
  private async insertBatch(batch: Array<{ row: AuditRow; stored?: boolean }>): Promise<void> {
    if (this.closing)
      throw new SvcError('ServiceUnavailable', 'the audit sink is stopping; retry on another node', {
        retryAfterSeconds: 5,
      });
    const rows = batch.map((b) => b.row);
    const head = chainRows(rows, this.node, this.head);
    try {
      const writer = this.writer;
      await this.stored(
        async (): Promise<void> =>
          writer
            ? writer.insert('svc_audit', rows as unknown as Array<Record<string, unknown>>)
            : void (await this.knex()('svc_audit').insert(rows)),
      );
    } catch (err) {
      if (
        batch.length === 1 &&
        isUniqueViolation(err) &&
        (await this.run(() => this.knex()('svc_audit').where('event_id', rows[0]!.event_id).first('id')))
      )
        return;
      throw err;
    }
    this.head = head;
    for (const b of batch) b.stored = true;
    this.recorder?.wrote(this.knex(), rows);
  }

  /** Runs in a reader worker, never on the request path; a background page on the low-priority one. */
  query(q: AuditQuery): Promise<AuditPage> {
    return this.readerOf(q.background === true).request('query', q);
  }

  /**
   * Removes rows earlier than now minus the retention period, a whole prefix of each chain at a time
   * (chain-prune.ts), and records in the journal where each chain now starts.
   */
  async prune(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - this.retentionDays * DAY_MS).toISOString();
    const recorder = this.recorder;
    return pruneChains(this.knex(), cutoff, recorder && ((node, row) => recorder.pruned(node, row)));
  }

  /** Rows that happened before this may have been pruned by now (see prune); undefined without retention. */
  private pruneBefore(): string | undefined {
    return this.retentionDays > 0
      ? new Date(this.clock.now().getTime() - this.retentionDays * DAY_MS).toISOString()
      : undefined;
  }

  private run<T>(work: () => Promise<T>): Promise<T> {
    return unlessUnavailable(`the audit database (${this.settings.describe})`, work);
  }

  private readerOf(background = false): AuditReader {
    const reader = background ? this.background : this.reader;
    if (!reader) throw new Error('audit sink is not started');
    return reader;
  }

  private knex(): Knex {
    if (!this.db) throw new Error('audit sink is not started');
    return this.db;
  }
}
