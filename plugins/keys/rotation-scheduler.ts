import { isSvcError } from '../../kernel/errors.ts';
import { SYSTEM_PRINCIPAL, type ManagedKey } from '../../kernel/model/index.ts';
import type { AuditPipelinePort } from '../../kernel/ports/audit-pipeline.ts';
import type { Clock } from '../../kernel/ports/clock.ts';
import type { KeyJournal } from '../../kernel/ports/journal.ts';
import type { Logger } from '../../kernel/ports/logger.ts';
import type { RotationHooks } from './key-crypto.ts';
import type { KeyLifecycle } from './key-lifecycle.ts';
import type { KeyStore } from './key-store.ts';
import { parseRotationPolicy, timeRotationDue } from './rotation-policy.ts';

/**
 * Enforces stored rotation policies. TimeBased keys rotate when used after their period and from a
 * background timer; OpCountBased keys rotate after N successful sign, encrypt or wrap calls on the
 * current version (counted in this process: a restart starts the count again). Scheduled rotations
 * are audited as svc-system.
 */
export class RotationScheduler implements RotationHooks {
  private readonly uses = new Map<string, { version: number; count: number }>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: KeyStore,
    private readonly lifecycle: KeyLifecycle,
    private readonly journal: KeyJournal,
    private readonly audit: AuditPipelinePort,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly checkSeconds: number,
  ) {}

  async start(): Promise<void> {
    // Warm the cache so the timer sees every key with a policy, not only the ones used since boot.
    for (const id of await this.journal.keyIds()) await this.store.get(id);
    this.timer = setInterval(() => void this.sweep(), this.checkSeconds * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.allSettled(this.inFlight.values());
  }

  async sweep(): Promise<void> {
    const now = this.clock.now();
    await Promise.all(this.store.cached().filter((k) => timeRotationDue(k, now)).map((k) => this.rotate(k, 'TimeBased period elapsed')));
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
    let outcome = 'Success';
    const context: Record<string, string> = { 'rotation.trigger': why, policy: key.rotationPolicy };
    try {
      const result = await this.lifecycle.rotate(key.id, SYSTEM_PRINCIPAL.subject, { reason: why, ifVersion: key.currentVersion });
      context.previousVersion = String(result.previousVersion);
      context.currentVersion = String(result.currentVersion);
    } catch (err) {
      if (isSvcError(err) && err.code === 'IllegalOperation') return; // someone else rotated or changed the key first
      outcome = isSvcError(err) ? err.code : 'InternalError';
      this.logger.error('scheduled rotation failed', { keyId: key.id, error: (err as Error).message });
    }
    try {
      await this.audit.record({
        occurredAt: this.clock.now().toISOString(),
        principal: { subject: SYSTEM_PRINCIPAL.subject, kind: SYSTEM_PRINCIPAL.kind },
        operation: 'Rotate',
        resource: key.id,
        outcome,
        context,
        correlationId: `rotation-${key.id}-${key.currentVersion}`,
      });
    } catch (err) {
      this.logger.error('audit of a scheduled rotation failed', { keyId: key.id, error: (err as Error).message });
    }
  }
}
