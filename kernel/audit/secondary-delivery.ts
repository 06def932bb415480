import type { AuditFanoutSink, DeliverySettings } from '../ports/audit-sink.ts';
import type { Logger } from '../ports/logger.ts';
import type { AuditEvent } from './canonical-event.ts';
import { replayDeadLetters, type ReplayOutcome } from './dead-letter-replay.ts';
import { FanoutQueue, type FanoutObserver } from './fanout.ts';

/** Delivery defaults of a secondary sink; the dead-letter file defaults to data/audit-<sink>.deadletter.jsonl. */
export const DEFAULT_DELIVERY: Omit<DeliverySettings, 'deadLetterFile'> = {
  queueCapacity: 10_000,
  maxRetries: 5,
  initialBackoffMs: 200,
  maxBackoffMs: 30_000,
  batchSize: 1,
  concurrency: 1,
};

export type SinkHealth = Record<string, { ok: boolean; state?: string; detail?: string }>;

/**
 * Where the audit pipeline hands each event after the primary write: the secondary sinks' queues, run
 * on the request loop (`LocalFanout`) or on a thread of their own (`ThreadedFanout`). `offer` never
 * blocks and never throws.
 */
export interface SecondaryDelivery {
  readonly size: number;
  offer(event: AuditEvent): void;
  /** One /readyz check per secondary sink, `sink:<name>`, and what the sinks' own probes say. */
  health(): Promise<SinkHealth>;
  /** Each secondary sink's queued events, for the queue-depth gauge. */
  depths(): Array<[string, number]>;
  /** Replays the dead-letter file of the named sink, or of every secondary sink, one after another. */
  replayDeadLetters(sink?: string): Promise<ReplayOutcome[]>;
  /** Drains the queues (each within its grace), then what is left goes to the dead-letter files. */
  stop(): Promise<void>;
}

/** The sinks' queues on the calling thread: a sink's CPU per event comes out of the request loop's. */
export class LocalFanout implements SecondaryDelivery {
  private readonly queues: FanoutQueue[];

  constructor(
    sinks: AuditFanoutSink[],
    private readonly logger: Logger,
    dataDir: string,
    observer?: FanoutObserver,
  ) {
    const names = new Set<string>();
    for (const sink of sinks) {
      if (names.has(sink.name))
        throw new Error(`two secondary audit sinks are named "${sink.name}"; names must be unique`);
      names.add(sink.name);
    }
    this.queues = sinks.map((sink) => new FanoutQueue(sink, deliverySettingsOf(sink, dataDir), logger, observer));
  }

  get size(): number {
    return this.queues.length;
  }

  /** Each sink's name, dead-letter file and queue capacity. */
  sinks(): Array<{ name: string; deadLetterFile: string; queueCapacity: number }> {
    return this.queues.map((q) => ({ name: q.name, deadLetterFile: q.deadLetterFile, queueCapacity: q.capacity }));
  }

  offer(event: AuditEvent): void {
    for (const q of this.queues) q.offer(event);
  }

  healthNow(): SinkHealth {
    return Object.fromEntries(this.queues.map((q) => [`sink:${q.name}`, q.health()]));
  }

  async health(): Promise<SinkHealth> {
    return this.healthNow();
  }

  depths(): Array<[string, number]> {
    return this.queues.map((q) => [q.name, q.depth]);
  }

  async replayDeadLetters(sink?: string): Promise<ReplayOutcome[]> {
    const chosen = sink === undefined ? this.queues : this.queues.filter((q) => q.name === sink);
    if (sink !== undefined && chosen.length === 0) {
      const names = this.queues.map((q) => q.name);
      throw new Error(
        `no secondary audit sink is named "${sink}"; ${names.length ? `configured: ${names.join(', ')}` : 'none is configured'}`,
      );
    }
    const outcomes: ReplayOutcome[] = [];
    for (const queue of chosen) outcomes.push(await replayDeadLetters(queue, this.logger));
    return outcomes;
  }

  async stop(): Promise<void> {
    await Promise.all(this.queues.map((q) => q.stop()));
  }
}

function deliverySettingsOf(sink: AuditFanoutSink, dataDir: string): DeliverySettings {
  return {
    ...DEFAULT_DELIVERY,
    deadLetterFile: `${dataDir}/audit-${sink.name}.deadletter.jsonl`,
    ...definedOnly(sink.delivery ?? {}),
  };
}

const definedOnly = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
