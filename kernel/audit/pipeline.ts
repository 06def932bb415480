import type { AuditRecord } from '../model/index.ts';
import type { AuditChainLink, AuditFanoutSink, AuditSink } from '../ports/audit-sink.ts';
import type { Logger } from '../ports/logger.ts';
import { toAuditEvent } from './canonical-event.ts';
import type { ReplayOutcome } from './dead-letter-replay.ts';
import type { FanoutObserver } from './fanout.ts';
import { LocalFanout, type SecondaryDelivery, type SinkHealth } from './secondary-delivery.ts';

export interface AuditPipelineOptions {
  /** This node's id (node.id): the `node` of every canonical event it writes. */
  node: string;
  /** Where dead-letter files go when a sink names none. */
  dataDir: string;
  observer?: FanoutObserver;
  /** Told about every write to the primary sink: how long it took and whether it succeeded. */
  primaryObserver?: { written(seconds: number, ok: boolean): void };
  /** How long an outbox acknowledgement may wait to share one delete with others (ms; OUTBOX_ACK_DELAY_MS). */
  ackDelayMs?: number;
}

/**
 * Outbox acknowledgements wait up to this long, or until OUTBOX_ACK_BATCH of them are pending, and go
 * in one delete. Each delete is a commit: on SQLite a synchronous fsync on the request path's thread,
 * so one per event-loop turn (one per state change under load) took a tenth of that thread's time.
 * A late acknowledgement costs nothing: the relay only takes records older than 10 s.
 */
export const OUTBOX_ACK_DELAY_MS = 250;
export const OUTBOX_ACK_BATCH = 500;

export type AuditListener = (record: AuditRecord) => void;

/** Where records of journaled state changes wait until the primary sink has them (the journal's outbox). */
export interface AuditOutbox {
  pendingAudit(before: string, limit: number): Promise<AuditRecord[]>;
  ackAudit(ids: string[]): Promise<void>;
}

/**
 * Every audit record goes through here: first the primary sink (awaited; a failure propagates so the
 * request fails closed), then the secondary sinks' queues (never awaited), then listeners such as
 * the anomaly detectors. A record that was journaled with its state change is acknowledged in the
 * outbox once the primary sink has it; acknowledgements are batched and never delay the caller (a lost
 * one only means the relay delivers the record again, and sinks store a record id once).
 */
export class AuditPipeline {
  private readonly secondary: SecondaryDelivery;
  private readonly listeners: AuditListener[] = [];
  private acks: string[] = [];
  private ackTimer: NodeJS.Timeout | undefined;

  /**
   * `fanout`: the secondary sinks, queued on this thread, or a delivery that runs them elsewhere (a fan-out thread).
   */
  constructor(
    private readonly primary: AuditSink,
    fanout: AuditFanoutSink[] | SecondaryDelivery,
    private readonly logger: Logger,
    private readonly outbox?: AuditOutbox,
    private readonly options: AuditPipelineOptions = { node: 'node', dataDir: 'data' },
  ) {
    this.secondary = Array.isArray(fanout)
      ? new LocalFanout(fanout, logger, options.dataDir, options.observer)
      : fanout;
  }

  get node(): string {
    return this.options.node;
  }

  /** One /readyz check per secondary sink, `sink:<name>` (and, with a fan-out thread, its sinks' own probes). */
  health(): Promise<SinkHealth> {
    return this.secondary.health();
  }

  /** Each secondary sink's queued events, for the queue-depth gauge. */
  depths(): Array<[string, number]> {
    return this.secondary.depths();
  }

  /** Replays the dead-letter file of the named sink, or of every secondary sink, one sink after another. */
  replayDeadLetters(sink?: string): Promise<ReplayOutcome[]> {
    return this.secondary.replayDeadLetters(sink);
  }

  get queryable(): boolean {
    return typeof this.primary.query === 'function';
  }

  onRecord(listener: AuditListener): void {
    this.listeners.push(listener);
  }

  async record(record: AuditRecord, journaled = false): Promise<void> {
    let link: void | AuditChainLink;
    try {
      link = await this.writePrimary(record);
    } catch (err) {
      // A journaled record is durable in the outbox and its change is acknowledged to the caller, so the
      // detectors see it now: the relay that delivers it later does not tell them, and an audit outage
      // must not hide a burst of destroys from them. Secondary sinks get it from the relay.
      if (journaled && this.outbox) for (const listener of this.listeners) listener(record);
      throw err;
    }
    if (journaled && this.outbox) this.acknowledge(record.id);
    this.fanOut(record, link);
    for (const listener of this.listeners) listener(record);
  }

  private async writePrimary(record: AuditRecord): Promise<void | AuditChainLink> {
    const observer = this.options.primaryObserver;
    if (!observer) return this.primary.write(record);
    const started = performance.now();
    try {
      const link = await this.primary.write(record);
      observer.written((performance.now() - started) / 1000, true);
      return link;
    } catch (err) {
      observer.written((performance.now() - started) / 1000, false);
      throw err;
    }
  }

  /** Acknowledges stored records in the outbox, in batches (OUTBOX_ACK_DELAY_MS, OUTBOX_ACK_BATCH). */
  private acknowledge(id: string): void {
    this.acks.push(id);
    if (this.acks.length >= OUTBOX_ACK_BATCH) {
      void this.flushAcks();
      return;
    }
    if (this.ackTimer) return;
    // Unreferenced: pending acknowledgements never keep a process alive; stop() flushes them, and any
    // lost to a crash are delivered again by the relay (sinks store a record id once).
    this.ackTimer = setTimeout(() => void this.flushAcks(), this.options.ackDelayMs ?? OUTBOX_ACK_DELAY_MS).unref();
  }

  private flushAcks(): Promise<void> {
    clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    const ids = this.acks;
    this.acks = [];
    if (ids.length === 0) return Promise.resolve();
    return this.outbox!.ackAudit(ids).catch((err) =>
      this.logger.warn('audit outbox acknowledgement failed; the relay will deliver the records again', {
        records: ids.length,
        error: (err as Error).message,
      }),
    );
  }

  /**
   * Delivers outbox records older than `before` to the primary sink and acknowledges them: the records
   * of state changes whose first write failed. Listeners do not see them (they describe the past).
   * Returns how many were delivered; stops at the first failure (the sink is still down).
   */
  async relay(before: string, limit = 500): Promise<number> {
    if (!this.outbox) return 0;
    const pending = await this.outbox.pendingAudit(before, limit);
    let delivered = 0;
    for (const record of pending) {
      const link = await this.writePrimary(record);
      await this.outbox.ackAudit([record.id]);
      this.fanOut(record, link);
      delivered++;
    }
    return delivered;
  }

  /** Secondary sinks get the canonical event, with its place on the primary's hash chain when it has one. */
  private fanOut(record: AuditRecord, link: void | AuditChainLink): void {
    if (this.secondary.size === 0) return;
    const event = link
      ? { ...toAuditEvent(record, this.options.node), ...link }
      : toAuditEvent(record, this.options.node);
    this.secondary.offer(event);
  }

  /** Drains the secondary queues; called in the background-work step of shutdown. */
  async stop(): Promise<void> {
    await this.flushAcks();
    await this.secondary.stop();
  }
}
