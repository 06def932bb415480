import type { Wired } from './container.ts';
import type { Lifecycle } from './ports/lifecycle.ts';
import type { Logger } from './ports/logger.ts';

const asLifecycle = (x: unknown): Lifecycle => (x && typeof x === 'object' ? (x as Lifecycle) : {});

function withTimeout<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Starts wired plugins in dependency order, each within a time limit, and stops them in reverse.
 * If a start fails, what already started is stopped before the error propagates. `stop` is
 * idempotent: a second signal during shutdown does nothing more.
 */
export class PluginLifecycle {
  private started: Wired[] = [];
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly wired: Wired[],
    private readonly logger: Logger,
    private readonly timeouts = { startMs: 30_000, stopMs: 10_000 },
  ) {}

  async start(): Promise<void> {
    for (const w of this.wired) {
      const lc = asLifecycle(w.instance);
      try {
        if (lc.start) await withTimeout(`plugin "${w.name}" start`, this.timeouts.startMs, lc.start());
      } catch (err) {
        await this.stop();
        throw new Error(`plugin "${w.name}" (${w.plugin.provides.id}) failed to start: ${(err as Error).message}`);
      }
      this.started.push(w);
    }
  }

  /** The instances it manages, in start order. */
  instances(): unknown[] {
    return this.wired.map((w) => w.instance);
  }

  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private async stopAll(): Promise<void> {
    for (const w of [...this.started].reverse()) {
      const lc = asLifecycle(w.instance);
      try {
        if (lc.stop) await withTimeout(`plugin "${w.plugin.id}" stop`, this.timeouts.stopMs, lc.stop());
      } catch (err) {
        this.logger.error('plugin stop failed', { plugin: w.plugin.id, error: (err as Error).message });
      }
    }
    this.started = [];
  }

  /** Cheap live checks of every plugin that can be probed, and the checks plugins report themselves, for /readyz. */
  async probe(): Promise<Record<string, { ok: boolean; state?: string; detail?: string }>> {
    const checks: Record<string, { ok: boolean; state?: string; detail?: string }> = {};
    await Promise.all(
      this.wired.map(async (w) => {
        const lc = asLifecycle(w.instance);
        if (lc.readiness) Object.assign(checks, lc.readiness());
        if (!lc.probe) return;
        const name = w.plugin.provides.multiple ? w.name : w.plugin.provides.id;
        try {
          await withTimeout(`probe of ${w.plugin.id}`, 2_000, lc.probe());
          checks[name] = { ok: true };
        } catch (err) {
          checks[name] = { ok: false, detail: (err as Error).message };
        }
      }),
    );
    return checks;
  }
}
