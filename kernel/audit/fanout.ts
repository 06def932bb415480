import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { AuditRecord } from '../model/index.ts';
import type { AuditFanoutSink } from '../ports/audit-sink.ts';
import type { Logger } from '../ports/logger.ts';

export interface DeliverySettings {
  queueCapacity: number;
  maxRetries: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  deadLetterFile: string;
}

/** A sink's `deliver` throws this when retrying cannot help (a 4xx answer): straight to dead-letter. */
export class PermanentDeliveryError extends Error {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Feeds one secondary sink from a bounded queue with a background drain, retrying with exponential
 * backoff and writing what it cannot deliver (or what overflows the queue) to a JSONL dead-letter file.
 * It never blocks a request and never throws into one.
 */
export class FanoutQueue {
  private readonly queue: AuditRecord[] = [];
  private draining: Promise<void> | undefined;
  // Dead-letter writes run one after another, in order; stop() waits for the last.
  private deadLetters: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly sink: AuditFanoutSink,
    private readonly settings: DeliverySettings,
    private readonly logger: Logger,
  ) {}

  offer(record: AuditRecord): void {
    if (this.stopped) return;
    if (this.queue.length >= this.settings.queueCapacity) {
      void this.deadLetter(record, 'queue full');
      return;
    }
    this.queue.push(record);
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  /**
   * Refuses new records and waits for the queue to drain, at most `graceMs`; what is still queued then
   * goes to the dead-letter file so that shutdown is never held up by a sink that is down.
   */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopped = true;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([this.draining, grace]);
    clearTimeout(timer);
    const left = this.queue.splice(0);
    for (const record of left) void this.deadLetter(record, 'not delivered before shutdown');
    await this.deadLetters;
  }

  private async drain(): Promise<void> {
    for (let record = this.queue.shift(); record; record = this.queue.shift()) await this.deliver(record);
  }

  private async deliver(record: AuditRecord): Promise<void> {
    let backoff = this.settings.initialBackoffMs;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.sink.deliver(record);
        return;
      } catch (err) {
        const permanent = err instanceof PermanentDeliveryError;
        if (permanent || attempt >= this.settings.maxRetries) {
          this.logger.warn('audit fan-out gave up on a record', { sink: this.sink.name, error: (err as Error).message });
          await this.deadLetter(record, (err as Error).message);
          return;
        }
        await sleep(backoff);
        backoff = Math.min(backoff * 2, this.settings.maxBackoffMs);
      }
    }
  }

  private deadLetter(record: AuditRecord, reason: string): Promise<void> {
    this.deadLetters = this.deadLetters.then(async () => {
      try {
        await mkdir(path.dirname(this.settings.deadLetterFile), { recursive: true, mode: 0o700 });
        await appendFile(this.settings.deadLetterFile, `${JSON.stringify({ reason, record })}\n`, { mode: 0o600 });
      } catch (err) {
        this.logger.error('audit dead-letter write failed', { sink: this.sink.name, error: (err as Error).message });
      }
    });
    return this.deadLetters;
  }
}
