import {
  type Clock,
  type KeyJournal,
  type Logger,
  type OperationRunner,
  SYSTEM_PRINCIPAL,
} from '../../kernel/index.ts';
import { DestructionSuperseded } from './key-destruction.ts';

/** The first look for due destructions, after boot: the audit sinks have started by then. */
const FIRST_SWEEP_MS = 1000;
/** Due keys read per look; more wait for the next one. */
const BATCH = 100;

/**
 * Carries out scheduled destructions when they fall due, on every node: the journal lists the due keys
 * (whichever node scheduled them, and those that fell due while every node was down), and each is
 * destroyed through the operation pipeline as svc-system (`DestroyScheduledKey`), so it is audited like
 * any destroy. Nodes racing for one key: one append wins, the others are superseded and write nothing.
 */
export class DestroyScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly journal: KeyJournal,
    private readonly operations: OperationRunner,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly checkSeconds: number,
  ) {}

  start(): void {
    const first = setTimeout(() => {
      void this.sweep();
      this.timer = setInterval(() => void this.sweep(), this.checkSeconds * 1000);
      this.timer.unref();
    }, FIRST_SWEEP_MS);
    first.unref();
    this.timer = first;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.timer);
    await this.running;
  }

  /** One look: destroys every key due now, one at a time. A look already running is shared. */
  sweep(): Promise<void> {
    this.running ??= this.destroyDue().finally(() => (this.running = undefined));
    return this.running;
  }

  private async destroyDue(): Promise<void> {
    let due: Array<{ keyId: string; destroyAt: string }>;
    try {
      due = await this.journal.dueDestructions(this.clock.now().toISOString(), BATCH);
    } catch (err) {
      this.logger.error('could not read the scheduled destructions; retried at the next check', {
        error: (err as Error).message,
      });
      return;
    }
    for (const { keyId, destroyAt } of due) {
      if (this.stopped) return;
      try {
        await this.operations.run(
          'DestroyScheduledKey',
          { id: keyId, destroyAt },
          {
            principal: SYSTEM_PRINCIPAL,
            requestId: `destruction-${keyId}`,
            door: 'internal',
            decorate: { context: { 'destroy.trigger': 'scheduled' } },
            unaudited: (failure) => failure instanceof DestructionSuperseded,
          },
        );
        this.logger.info('carried out a scheduled destruction', { keyId, destroyAt });
      } catch (err) {
        if (err instanceof DestructionSuperseded) continue;
        // Audited as a failed Destroy by svc-system; the key stays due and is tried again at the next check.
        this.logger.error('scheduled destruction failed; retried at the next check', {
          keyId,
          error: (err as Error).message,
        });
      }
    }
  }
}
