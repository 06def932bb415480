import type { Knex } from 'knex';
import { GroupCommit } from '../../../kernel/audit/group-commit.ts';
import { connectAndMigrate } from '../../sql-support/connect.ts';
import { unlessUnavailable } from '../../sql-support/unavailable.ts';
import type { KnexSettings } from '../../sql-support/knex-settings.ts';
import type { AuditQuery, AuditRecord } from '../../../kernel/model/index.ts';
import type { AuditPage, AuditSink } from '../../../kernel/ports/audit-sink.ts';
import type { Clock } from '../../../kernel/ports/clock.ts';
import type { Logger } from '../../../kernel/ports/logger.ts';
import { auditMigrations } from './audit-migrations.ts';

const DAY_MS = 86_400_000;

interface Row {
  id?: number;
  event_id: string | null;
  occurred_at: string;
  actor: string;
  actor_kind: string;
  operation: string;
  resource: string;
  outcome: string;
  context: string;
  correlation_id: string;
}

/**
 * A queryable SQL audit sink with daily retention pruning (SPEC 6 "Sinks"). A record is stored once per
 * event id; a batch the database refuses is retried record by record (GroupCommit), so one record can
 * never fail another request's write.
 */
export class KnexAuditSink implements AuditSink {
  private db: Knex | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  // Concurrent requests' records go in as one multi-row INSERT; each request waits for its commit.
  private readonly rows = new GroupCommit<Row>((batch) => this.run(async () => void (await this.knex()('svc_audit').insert(batch).onConflict('event_id').ignore())), 500);

  constructor(
    private readonly settings: KnexSettings,
    private readonly retentionDays: number,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.db = await connectAndMigrate(this.settings, auditMigrations, 'svc_audit_migrations');
    if (this.retentionDays > 0) {
      await this.prune();
      this.pruneTimer = setInterval(() => void this.prune().catch((err) => this.logger.warn('audit pruning failed', { error: (err as Error).message })), DAY_MS);
      this.pruneTimer.unref();
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.pruneTimer);
    const db = this.db;
    this.db = undefined;
    await db?.destroy();
  }

  /** A write, not a read: a store that answers but cannot be written (a full disk) is not ready. */
  async probe(): Promise<void> {
    await this.run(() => this.knex()('svc_audit_probe').insert({ id: 1, checked_at: this.clock.now().toISOString() }).onConflict('id').merge());
  }

  write(r: AuditRecord): Promise<void> {
    return this.rows.add({
      event_id: r.id,
      occurred_at: r.occurredAt,
      actor: r.principal.subject,
      actor_kind: r.principal.kind,
      operation: r.operation,
      resource: r.resource,
      outcome: r.outcome,
      context: JSON.stringify(r.context),
      correlation_id: r.correlationId,
    });
  }

  async query(q: AuditQuery): Promise<AuditPage> {
    const sql = this.knex()('svc_audit');
    if (q.since) sql.where('occurred_at', '>=', q.since);
    if (q.until) sql.where('occurred_at', '<', q.until);
    if (q.actor) sql.where('actor', q.actor);
    if (q.key) sql.where('resource', q.key);
    if (q.op) sql.where('operation', q.op);
    const rows: Row[] = await this.run(() => sql.orderBy([{ column: 'occurred_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(q.limit + 1).offset(q.offset));
    return {
      hasMore: rows.length > q.limit,
      records: rows.slice(0, q.limit).map((row) => ({
        id: row.event_id ?? `row-${row.id}`,
        occurredAt: row.occurred_at,
        principal: { subject: row.actor, kind: row.actor_kind as AuditRecord['principal']['kind'] },
        operation: row.operation,
        resource: row.resource,
        outcome: row.outcome,
        context: JSON.parse(row.context),
        correlationId: row.correlation_id,
      })),
    };
  }

  /** Removes rows strictly earlier than now minus the retention period. */
  async prune(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - this.retentionDays * DAY_MS).toISOString();
    return this.knex()('svc_audit').where('occurred_at', '<', cutoff).delete();
  }

  private run<T>(work: () => Promise<T>): Promise<T> {
    return unlessUnavailable(`the audit database (${this.settings.describe})`, work);
  }

  private knex(): Knex {
    if (!this.db) throw new Error('audit sink is not started');
    return this.db;
  }
}
