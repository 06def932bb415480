import path from 'node:path';
import { type AuditEvent, eventJson } from './canonical-event.ts';
import type { AuditFanoutSink, DeliverySettings } from '../ports/audit-sink.ts';
import type { Logger } from '../ports/logger.ts';
import { writeDeadLetters } from './dead-letter-append.ts';
import { WaitingEvents } from './waiting-events.ts';
import { narrowToOwner, setAsideIfOthersCouldWrite, warnIfFolderOpen } from '../files/owner-only.ts';

/** How far into the queue a worker looks for an event whose correlation is free (concurrency above 1). */
const SCAN_LIMIT = 1_000;

export type DeliveryResult = 'delivered' | 'retried' | 'dead_lettered';

/** What the queue reports as it works (the kernel's metrics). */
export interface FanoutObserver {
  counted(sink: string, result: DeliveryResult, events: number): void;
}

/**
 * One line of a dead-letter file, from the event's text as the sinks send it (eventJson): `{event, sink, error,
 * attempts, failedAt}`.
 */
export function deadLetterLine(
  eventText: string,
  sink: string,
  error: string,
  attempts: number,
  failedAt: string,
): string {
  return `{"event":${eventText},"sink":${JSON.stringify(sink)},"error":${JSON.stringify(error)},"attempts":${attempts},"failedAt":"${failedAt}"}\n`;
}

/** A sink's `deliver` throws this when retrying cannot help (a 4xx answer): straight to the dead letter. */
export class PermanentDeliveryError extends Error {}

/**
 * Feeds one secondary sink from a bounded queue with background workers, retrying with exponential
 * backoff (initial, doubling, capped) and writing what it cannot deliver, or what overflows the queue,
 * to a JSONL dead-letter file. Nothing is dropped silently; it never blocks a request and never throws
 * into one. With concurrency 1 the destination receives events in the order they were offered, a
 * failed batch holding back the ones behind it. With more, several deliveries are in flight at once but
 * the events of one correlation id (one request) still go one after another, in the order offered: an
 * event waits while an earlier one of its correlation is in flight or being retried.
 */
export class FanoutQueue {
  private readonly queue = new WaitingEvents();
  private readonly inFlight = new Set<AuditEvent[]>();
  /** Correlation ids with an event in flight, and how many (concurrency above 1 only). */
  private readonly busy = new Map<string, number>();
  private workers = 0;
  private drained: Promise<void> = Promise.resolve();
  private resolveDrained: (() => void) | undefined;
  // Dead-letter writes run one after another, in order; stop() waits for the last.
  private deadLetters: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly abandon = new AbortController();
  private failure: { attempts: number; error: string } | undefined;
  /**
   * Dead-letter files found writable by other users at start and moved aside unread (see `setAsideIfOthersCouldWrite`).
   */
  readonly setAside: string[] = [];

  constructor(
    private readonly sink: AuditFanoutSink,
    private readonly settings: DeliverySettings,
    private readonly logger: Logger,
    private readonly observer: FanoutObserver = { counted: () => {} },
  ) {
    // Appending keeps an existing file's mode: one pre-created 0666 would take (and offer for replay) lines from
    // anyone.
    warnIfFolderOpen(path.dirname(settings.deadLetterFile), logger);
    const aside = setAsideIfOthersCouldWrite(settings.deadLetterFile, 'audit dead-letter file', logger);
    if (aside) this.setAside.push(aside);
    narrowToOwner(`${settings.deadLetterFile}.unreadable`, 'audit dead-letter file', logger);
  }

  get name(): string {
    return this.sink.name;
  }

  get depth(): number {
    return this.queue.length;
  }

  get capacity(): number {
    return this.settings.queueCapacity;
  }

  get deadLetterFile(): string {
    return this.settings.deadLetterFile;
  }

  /** Resolves once nothing is queued or in flight: every event offered so far was delivered or dead-lettered. */
  async settled(): Promise<void> {
    await this.drained;
    await this.deadLetters;
  }

  offer(event: AuditEvent): void {
    if (this.stopped) {
      void this.deadLetter([event], 'offered after shutdown began', 0);
      return;
    }
    if (this.queue.length >= this.settings.queueCapacity) {
      void this.deadLetter([event], 'queue full', 0);
      return;
    }
    this.queue.push(event);
    while (this.workers < this.settings.concurrency && this.queue.length > 0) this.startWorker();
  }

  /** Healthy while deliveries succeed or nothing was tried yet; failing while a delivery is being retried. */
  health(): { ok: boolean; detail?: string } {
    if (!this.failure) return { ok: true };
    return {
      ok: false,
      detail: `delivery failing (${this.failure.attempts} attempt(s), ${this.queue.length} queued): ${this.failure.error}`,
    };
  }

  /**
   * Refuses new events and waits for the queue to drain, at most `graceMs`; what is still queued or in
   * flight then goes to the dead-letter file, so shutdown is never held up by a sink that is down.
   */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopped = true;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([this.drained, grace]);
    clearTimeout(timer);
    this.abandon.abort();
    const left = [...this.inFlight].flat().concat(this.queue.takeAll());
    this.inFlight.clear();
    if (left.length) void this.deadLetter(left, 'not delivered before shutdown', 0);
    await this.deadLetters;
  }

  private startWorker(): void {
    if (this.workers++ === 0) this.drained = new Promise((resolve) => (this.resolveDrained = resolve));
    void this.work().finally(() => {
      if (--this.workers === 0) this.resolveDrained?.();
    });
  }

  private async work(): Promise<void> {
    for (;;) {
      if (this.abandon.signal.aborted) return;
      const batch = this.takeBatch();
      if (batch.length === 0) return;
      this.inFlight.add(batch);
      await this.deliver(batch);
      this.inFlight.delete(batch);
      if (this.settings.concurrency > 1) for (const e of batch) this.release(e.correlationId);
    }
  }

  /**
   * The next batch. With concurrency above 1, only events whose correlation has nothing in flight and
   * nothing waiting ahead of them; the scan looks at a bounded stretch of the queue, and a worker that
   * finds nothing to take ends (the worker delivering the blocking event takes the rest afterwards).
   */
  private takeBatch(): AuditEvent[] {
    const size = this.settings.batchSize;
    if (this.settings.concurrency <= 1) return this.queue.takeFront(size);
    const batch = this.queue.takeFree(size, SCAN_LIMIT, (key) => this.busy.has(key));
    for (const e of batch) this.busy.set(e.correlationId, (this.busy.get(e.correlationId) ?? 0) + 1);
    return batch;
  }

  private release(correlationId: string): void {
    const n = (this.busy.get(correlationId) ?? 1) - 1;
    if (n <= 0) this.busy.delete(correlationId);
    else this.busy.set(correlationId, n);
  }

  private async deliver(batch: AuditEvent[]): Promise<void> {
    let backoff = this.settings.initialBackoffMs;
    for (let attempt = 1; ; attempt++) {
      try {
        if (this.sink.deliverBatch) await this.sink.deliverBatch(batch);
        else for (const event of batch) await this.sink.deliver(event);
        this.failure = undefined;
        this.observer.counted(this.sink.name, 'delivered', batch.length);
        return;
      } catch (err) {
        if (this.abandon.signal.aborted) return; // stop() has dead-lettered this batch already
        const error = (err as Error).message;
        const permanent = err instanceof PermanentDeliveryError;
        this.failure = permanent ? this.failure : { attempts: attempt, error };
        if (permanent || attempt > this.settings.maxRetries) {
          this.logger.warn('audit sink gave up on events; they go to its dead-letter file', {
            sink: this.sink.name,
            events: batch.length,
            attempts: attempt,
            error,
          });
          await this.deadLetter(batch, error, attempt);
          return;
        }
        this.observer.counted(this.sink.name, 'retried', batch.length);
        await this.pause(backoff);
        if (this.abandon.signal.aborted) return;
        backoff = Math.min(backoff * 2, this.settings.maxBackoffMs);
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const signal = this.abandon.signal;
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private deadLetter(events: AuditEvent[], error: string, attempts: number): Promise<void> {
    this.observer.counted(this.sink.name, 'dead_lettered', events.length);
    const failedAt = new Date().toISOString();
    const lines = events.map((event) => deadLetterLine(eventJson(event), this.sink.name, error, attempts, failedAt));
    this.deadLetters = this.deadLetters.then(() =>
      writeDeadLetters(this.settings.deadLetterFile, lines, this.sink.name, this.logger),
    );
    return this.deadLetters;
  }
}
