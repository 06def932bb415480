import type { AuditQuery, AuditRecord } from '../model/index.ts';
import type { DeliverySettings } from '../audit/fanout.ts';
import type { Lifecycle } from './lifecycle.ts';
import { createPortRef } from './port-ref.ts';

export interface AuditPage {
  records: AuditRecord[];
  hasMore: boolean;
}

/**
 * The primary audit sink. `write` resolves only once the record is durable in the sink; if it throws,
 * the request fails closed (500) and returns no cryptographic output. `query` exists only on sinks that
 * can be read back (GET /v1/audit answers 501 otherwise): newest first, filters ANDed.
 */
export interface AuditSink extends Lifecycle {
  write(record: AuditRecord): Promise<void>;
  query?(query: AuditQuery): Promise<AuditPage>;
}

export const auditSinkPort = createPortRef<AuditSink>('audit');

/**
 * A secondary (fan-out) sink: best effort, fed from a bounded queue after the primary write, its
 * failures logged and swallowed. `deliver` may throw; the kernel's fan-out retries and dead-letters.
 */
export interface AuditFanoutSink extends Lifecycle {
  readonly name: string;
  /** Queue and retry settings; unset ones take the kernel's defaults (kernel/audit/pipeline.ts). */
  readonly delivery?: Partial<DeliverySettings>;
  deliver(record: AuditRecord): Promise<void>;
}

export const auditFanoutPort = createPortRef<AuditFanoutSink>('auditFanout', { multiple: true });
