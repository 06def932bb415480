import type { Logger } from '../ports/logger.ts';
import type { Clock } from '../ports/clock.ts';
import type { AuditPipeline } from './pipeline.ts';

/**
 * Delivers the outbox: at start and then every `intervalMs`, records of state changes older than
 * `graceMs` that the primary sink does not have yet (its write failed, or the node died between commit
 * and write) are written and acknowledged. The grace keeps it from racing requests still writing their
 * own record; were it to overlap one, the sink stores a record id once.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly audit: AuditPipeline,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly intervalMs = 5_000,
    private readonly graceMs = 10_000,
  ) {}

  async start(): Promise<void> {
    await this.runOnce(this.clock.now().toISOString());
    this.timer = setInterval(
      () => void this.runOnce(new Date(this.clock.now().getTime() - this.graceMs).toISOString()),
      this.intervalMs,
    );
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass over the outbox (exported for tests and for start-up, where nothing is in flight yet). */
  runOnce(before: string): Promise<void> {
    this.running ??= (async () => {
      try {
        for (let n = await this.audit.relay(before); n > 0; n = await this.audit.relay(before))
          this.logger.info('audit outbox relayed records to the primary sink', { records: n });
      } catch (err) {
        this.logger.warn('audit outbox relay could not reach the primary sink; will retry', {
          error: (err as Error).message,
        });
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }
}
