import type { AuditRecord } from '../model/index.ts';
import type { AuditFanoutSink, AuditSink } from '../ports/audit-sink.ts';
import type { Logger } from '../ports/logger.ts';
import { FanoutQueue, type DeliverySettings } from './fanout.ts';

const DEFAULT_DELIVERY: DeliverySettings = {
  queueCapacity: 10_000,
  maxRetries: 5,
  initialBackoffMs: 200,
  maxBackoffMs: 10_000,
  deadLetterFile: 'data/audit-dead-letter.jsonl',
};

export type AuditListener = (record: AuditRecord) => void;

/**
 * Every audit record goes through here: first the primary sink (awaited; a failure propagates so the
 * request fails closed), then the secondary sinks' queues (never awaited), then listeners such as
 * the anomaly detectors.
 */
export class AuditPipeline {
  private readonly queues: FanoutQueue[];
  private readonly listeners: AuditListener[] = [];

  constructor(
    private readonly primary: AuditSink,
    fanout: AuditFanoutSink[],
    logger: Logger,
  ) {
    this.queues = fanout.map((sink) => new FanoutQueue(sink, { ...DEFAULT_DELIVERY, ...sink.delivery }, logger));
  }

  get queryable(): boolean {
    return typeof this.primary.query === 'function';
  }

  onRecord(listener: AuditListener): void {
    this.listeners.push(listener);
  }

  async record(record: AuditRecord): Promise<void> {
    await this.primary.write(record);
    for (const q of this.queues) q.offer(record);
    for (const listener of this.listeners) listener(record);
  }

  /** Drains the secondary queues; called in the background-work step of shutdown. */
  async stop(): Promise<void> {
    await Promise.all(this.queues.map((q) => q.stop()));
  }
}
