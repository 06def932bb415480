import type { AuditQuery, AuditRecord } from '../model/index.ts';
import type { AuditEvent } from '../audit/canonical-event.ts';
import type { Lifecycle } from './lifecycle.ts';
import { createPortRef } from './port-ref.ts';

export interface AuditPage {
  records: AuditRecord[];
  hasMore: boolean;
  /** With hasMore, from sinks that can seek: pass it as the query's `before` to read the next page. */
  next?: string;
}

export interface AuditVerifyQuery {
  node?: string;
  since?: string;
  until?: string;
  /**
   * Check every row again; without it (and without a window) a sink may check only rows after the last verified ones.
   */
  full?: boolean;
}

/** GET /v1/audit/verify's answer. */
export interface AuditVerification {
  valid: boolean;
  checked: number;
  nodes: string[];
  firstBroken?: { id: string; node: string; reason: string };
}

/** Where a record landed on its node's hash chain; secondary sinks carry it, anchoring the chain outside. */
export interface AuditChainLink {
  prevHash: string;
  hash: string;
}

/**
 * The primary audit sink. `write` resolves only once the record is durable in the sink; if it throws,
 * the request fails closed (500) and returns no cryptographic output. `query` exists only on sinks that
 * can be read back (GET /v1/audit answers 501 otherwise): newest first, filters ANDed.
 */
export interface AuditSink extends Lifecycle {
  /** Resolves once durable; a sink that chains its records answers the record's link. */
  write(record: AuditRecord): Promise<void | AuditChainLink>;
  query?(query: AuditQuery): Promise<AuditPage>;
  /** Sinks that chain their records per node (the SQL sinks) recompute the chains. */
  verify?(query: AuditVerifyQuery): Promise<AuditVerification>;
}

export const auditSinkPort = createPortRef<AuditSink>('audit');

/** How the kernel queues, retries and dead-letters the events of one secondary sink. */
export interface DeliverySettings {
  queueCapacity: number;
  maxRetries: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  deadLetterFile: string;
  /** Events handed to `deliverBatch` at once (sinks without it get one at a time). */
  batchSize: number;
  /**
   * Deliveries in flight at once; above 1 events of different correlation ids may arrive out of order (one
   * correlation's stay in order).
   */
  concurrency: number;
}

/**
 * A secondary (fan-out) sink: it receives the canonical audit event (kernel/audit/audit-event-schema.ts) after the
 * primary write, from a bounded queue the kernel drains in the background (kernel/audit/fanout.ts).
 * `deliver` resolves once the destination has the event and throws otherwise: a plain Error is retried
 * with backoff, a PermanentDeliveryError goes to the dead-letter file at once. It never reaches a request.
 */
export interface AuditFanoutSink extends Lifecycle {
  /** Unique among the sinks of one node: names the /readyz check (sink:<name>), metrics and dead letters. */
  readonly name: string;
  /** Queue and retry settings; unset ones take the kernel's defaults (kernel/audit/pipeline.ts). */
  readonly delivery?: Partial<DeliverySettings>;
  deliver(event: AuditEvent): Promise<void>;
  /**
   * Several events in one round trip, in order, all or nothing (a throw retries the whole batch, so the
   * destination should deduplicate on the event id). Optional; when present, the kernel delivers through it alone,
   * `delivery.batchSize` events at most.
   */
  deliverBatch?(events: AuditEvent[]): Promise<void>;
}

export const auditFanoutPort = createPortRef<AuditFanoutSink>('auditFanout', { multiple: true });
