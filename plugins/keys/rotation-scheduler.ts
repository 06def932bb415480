import {
  type Clock,
  isSvcError,
  type KeyJournal,
  type Logger,
  type ManagedKey,
  type OperationRunner,
  SYSTEM_PRINCIPAL,
} from '../../kernel/index.ts';
import type { RotationHooks } from './key-crypto.ts';
import type { KeyStore } from './key-store.ts';
import { parseRotationPolicy, timeRotationDue } from './rotation-policy.ts';

/** Keys read at once while the cache is warmed at start (a journal pool serves them side by side). */
const WARM_CONCURRENCY = 16;

/**
 * Enforces stored rotation policies. TimeBased keys rotate when used after their period and from a
 * background timer; OpCountBased keys rotate after N successful sign, encrypt or wrap calls on the
 * current version (counted in this process: a restart starts the count again). Scheduled rotations
 * run through the operation pipeline as svc-system, conditional on the version they saw, so they are
 * audited like any rotation and two triggers never rotate twice.
 */
export class RotationScheduler implements RotationHooks {
  private readonly uses = new Map<string, { version: number; count: number }>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: KeyStore,
    private readonly journal: KeyJournal,
    private readonly operations: OperationRunner,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly checkSeconds: number,
  ) {}

  async start(): Promise<void> {
    // Warm the cache so the timer sees every key with a policy, not only the ones used since boot. Several
    // keys at a time: one at a time, 100,000 keys on PostgreSQL took longer than a plugin's start limit.
    const ids = await this.journal.keyIds();
    let next = 0;
    const warm = async () => {
      while (next < ids.length) await this.store.get(ids[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(WARM_CONCURRENCY, ids.length) }, warm));
    this.timer = setInterval(() => void this.sweep(), this.checkSeconds * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.allSettled(this.inFlight.values());
  }

  async sweep(): Promise<void> {
    const now = this.clock.now();
    await Promise.all(
      this.store
        .cached()
        .filter((k) => timeRotationDue(k, now))
        .map((k) => this.rotate(k, 'TimeBased period elapsed')),
    );
  }

  beforeUse(key: ManagedKey): ManagedKey | Promise<ManagedKey> {
    if (key.rotationPolicy === 'Manual' || !timeRotationDue(key, this.clock.now())) return key;
    return this.rotate(key, 'TimeBased period elapsed').then(() => this.store.get(key.id));
  }

  afterProduce(key: ManagedKey): void {
    const policy = parseRotationPolicy(key.rotationPolicy);
    if (policy.kind !== 'OpCountBased') return;
    const used = this.uses.get(key.id);
    const count = used?.version === key.currentVersion ? used.count + 1 : 1;
    this.uses.set(key.id, { version: key.currentVersion, count });
    if (count >= policy.count) void this.rotate(key, `OpCountBased: ${count} uses of version ${key.currentVersion}`);
  }

  private rotate(key: ManagedKey, why: string): Promise<void> {
    const running = this.inFlight.get(key.id);
    if (running) return running;
    const work = this.rotateNow(key, why).finally(() => this.inFlight.delete(key.id));
    this.inFlight.set(key.id, work);
    return work;
  }

  private async rotateNow(key: ManagedKey, why: string): Promise<void> {
    try {
      await this.operations.run(
        'RotateKey',
        { id: key.id, reason: why, ifVersion: key.currentVersion },
        {
          principal: SYSTEM_PRINCIPAL,
          requestId: `rotation-${key.id}-${key.currentVersion}`,
          door: 'internal',
          decorate: { context: { 'rotation.trigger': why } },
        },
      );
    } catch (err) {
      // IllegalOperation: another trigger or node rotated (or changed) the key first; its row says so.
      if (!isSvcError(err) || err.code !== 'IllegalOperation')
        this.logger.error('scheduled rotation failed', { keyId: key.id, error: (err as Error).message });
    }
  }
}
