import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { JournalPoolStats } from '../ports/journal.ts';
import { LabelledCounter, LabelledHistogram, type CounterChild, type HistogramChild } from './labelled-metrics.ts';
import { createPortRef } from '../ports/port-ref.ts';

/** The service's Prometheus registry and the three KMS operation metrics (count, duration, errors). */
export class KmsMetrics {
  readonly registry = new Registry();
  private readonly ops: LabelledCounter<'operation'>;
  private readonly duration: LabelledHistogram<'operation' | 'outcome'>;
  private readonly errors: LabelledCounter<'operation' | 'code'>;
  private readonly limited: Counter<'kind'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // prom-client names these gauges *_total, which Prometheus keeps for counters (promtool refuses
    // them); the same counts stay available per type as nodejs_active_{handles,requests,resources}.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
      this.registry.removeSingleMetric(name);
    this.ops = new LabelledCounter({
      name: 'svc_keys_op_total',
      help: 'KMS operations handled.',
      labelNames: ['operation'],
      registers: [this.registry],
    });
    this.duration = new LabelledHistogram({
      name: 'svc_keys_op_duration_seconds',
      help: 'KMS operation latency, from authentication to the audit write.',
      labelNames: ['operation', 'outcome'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    this.errors = new LabelledCounter({
      name: 'svc_keys_op_errors_total',
      help: 'KMS operations that failed, by error code.',
      labelNames: ['operation', 'code'],
      registers: [this.registry],
    });
    this.limited = new Counter({
      name: 'svc_rate_limited_total',
      help: 'Calls refused with 429 by the per-principal rate limit, by principal kind.',
      labelNames: ['kind'],
      registers: [this.registry],
    });
  }

  private readonly sinkEvents = new Counter<'sink' | 'result'>({
    name: 'svc_audit_sink_events_total',
    help: 'Audit events of the secondary sinks, by sink and result (delivered, retried, dead_lettered).',
    labelNames: ['sink', 'result'],
    registers: [],
  });

  /** Counts secondary-sink outcomes and exposes each sink's queue depth, read when scraped. */
  trackAuditSinks(depths: () => Array<[string, number]>): {
    counted(sink: string, result: string, events: number): void;
  } {
    this.registry.registerMetric(this.sinkEvents);
    new Gauge<'sink'>({
      name: 'svc_audit_sink_queue_depth',
      help: "Audit events waiting in a secondary sink's queue.",
      labelNames: ['sink'],
      registers: [this.registry],
      collect() {
        for (const [sink, depth] of depths()) this.labels({ sink }).set(depth);
      },
    });
    return { counted: (sink, result, events) => this.sinkEvents.labels({ sink, result }).inc(events) };
  }

  /**
   * The primary audit sink's writes: latency by result, and failures (each one a call answered 500 or
   * 503, or a relay attempt that will be repeated).
   */
  trackAuditWrites(): { written(seconds: number, ok: boolean): void } {
    const latency = new LabelledHistogram<'result'>({
      name: 'svc_audit_write_duration_seconds',
      help: 'Writes to the primary audit sink, by result (ok, failed).',
      labelNames: ['result'],
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers: [this.registry],
    });
    const failures = new Counter({
      name: 'svc_audit_write_failures_total',
      help: 'Writes to the primary audit sink that failed.',
      registers: [this.registry],
    });
    const ok = latency.labels({ result: 'ok' });
    const failed = latency.labels({ result: 'failed' });
    return {
      written: (seconds, success) => {
        (success ? ok : failed).observe(seconds);
        if (!success) failures.inc();
      },
    };
  }

  /** The journal's database connection pool, read when scraped (journals without a pool report nothing). */
  trackJournalPool(stats: () => JournalPoolStats | undefined): void {
    new Gauge<'state'>({
      name: 'svc_journal_pool_connections',
      help: 'Journal database connections: used, free, pending (waiting for a connection) and max.',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const now = stats();
        if (!now) return;
        for (const [state, value] of Object.entries(now)) this.labels({ state }).set(value);
      },
    });
  }

  /** Destroyed keys whose storage is not erased yet (the key service's background erase), read when scraped. */
  trackErasurePending(pending: () => number): void {
    new Gauge({
      name: 'svc_erasure_pending',
      help:
        'Destroyed keys whose KWK and material are deleted but not yet erased ' +
        "from the journal database's files (retried until done).",
      registers: [this.registry],
      collect() {
        this.set(pending());
      },
    });
  }

  rateLimited(kind: string): void {
    this.limited.labels({ kind }).inc();
  }

  // Children are found by the operation and outcome strings themselves (constants whose hashes are
  // cached), never by a key string built per call.
  private readonly children = new Map<string, Map<string, OperationSeries>>();

  observe(operation: string, outcome: string, seconds: number): void {
    let byOutcome = this.children.get(operation);
    if (!byOutcome) this.children.set(operation, (byOutcome = new Map()));
    let child = byOutcome.get(outcome);
    if (!child) {
      child = {
        op: this.ops.labels({ operation }),
        duration: this.duration.labels({ operation, outcome: outcome === 'Success' ? 'success' : 'error' }),
        error: outcome === 'Success' ? undefined : this.errors.labels({ operation, code: outcome }),
      };
      byOutcome.set(outcome, child);
    }
    child.op.inc();
    child.duration.observe(seconds);
    child.error?.inc();
  }

  /** Last in the shutdown order: nothing is scraped after this. */
  clear(): void {
    this.children.clear();
    this.registry.clear();
  }
}

interface OperationSeries {
  op: CounterChild;
  duration: HistogramChild;
  error?: CounterChild;
}

export const metricsPort = createPortRef<KmsMetrics>('metrics');
