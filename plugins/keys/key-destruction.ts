import { type Clock, type PrincipalKind, SvcError } from '../../kernel/index.ts';
import type { ErasureWorker } from './erasure-worker.ts';
import type { KeyLifecycle } from './key-lifecycle.ts';
import { requireTransition } from './key-state.ts';
import type { ChangeScope, KeyStore } from './key-store.ts';
import type { KeyWrapping } from './key-wrapping.ts';

const DAY_MS = 86_400_000;

export interface DestructionSettings {
  /** The wait of a DELETE that names none (0: at once). */
  destroyWaitingDays: number;
  /** The least wait of an Agent's DELETE, whatever it asks. */
  agentDestroyWaitingDays: number;
}

/**
 * A scheduled destruction that did not happen because the key changed first: another node carried it
 * out, or a Human cancelled or rescheduled it. The run changed nothing and another record says what
 * happened, so the scheduler's run stays out of the audit trail.
 */
export class DestructionSuperseded extends SvcError {
  constructor(keyId: string) {
    super('IllegalOperation', `the scheduled destruction of key ${keyId} was already carried out or cancelled`);
  }
}

/**
 * Destruction with a waiting period, its cancel and its execution when due, and version trim. A
 * destroy that waits appends DestroyScheduled: the key keeps its state but serves nothing (key-state.ts)
 * until the scheduler (destroy-scheduler.ts) destroys it as svc-system. Trim erases old versions'
 * material the way destroy erases a key's: with a new KWK for the versions kept, so the old one, the
 * only key to every copy of the erased rows, goes with the background erase.
 */
export class KeyDestruction {
  constructor(
    private readonly store: KeyStore,
    private readonly lifecycle: KeyLifecycle,
    private readonly wrapping: KeyWrapping,
    private readonly erasure: ErasureWorker,
    private readonly clock: Clock,
    private readonly settings: DestructionSettings,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** The wait a DELETE gets: the one asked, else the deployment's; never less than the agent minimum for an Agent. */
  waitingDays(requested: number | undefined, kind: PrincipalKind): number {
    const days = requested ?? this.settings.destroyWaitingDays;
    return kind === 'Agent' ? Math.max(days, this.settings.agentDestroyWaitingDays) : days;
  }

  /**
   * DELETE: at once (the lifecycle's destroy) or scheduled. A key already scheduled is refused whatever
   * the new request asks: no later request moves the date, earlier or later (an agent could otherwise
   * hasten a Human's long wait, or postpone a destruction forever); a Human cancels and asks again.
   */
  async destroy(id: string, scope: ChangeScope, requested: number | undefined, kind: PrincipalKind) {
    const days = this.waitingDays(requested, kind);
    const current = await this.store.get(id, scope.trace);
    // A Destroyed key answers as before (the erase's progress, or 409), whatever the wait.
    if (days === 0 || current.state === 'Destroyed') return this.lifecycle.destroy(id, scope);
    const key = await this.store.mutate(id, scope, async (k) => {
      if (k.destroyAt) throw alreadyScheduled(k.id, k.destroyAt);
      requireTransition(k, 'DestroyScheduled');
      const destroyAt = new Date(this.clock.now().getTime() + days * DAY_MS).toISOString();
      return {
        event: { type: 'DestroyScheduled', at: this.now(), by: scope.by, destroyAt },
        facts: { context: { waitingDays: String(days), destroyAt } },
      };
    });
    // Nothing may use the key now: its material leaves memory at once, as for a revoke.
    this.store.forgetMaterial(key);
    return { id, state: key.state, destroyAt: key.destroyAt! };
  }

  async cancel(id: string, scope: ChangeScope) {
    let cancelled = '';
    const key = await this.store.mutate(id, scope, async (k) => {
      if (!k.destroyAt)
        throw new SvcError(
          'IllegalOperation',
          `key ${id} is ${k.state} and not scheduled for destruction; nothing to cancel`,
        );
      cancelled = k.destroyAt;
      return {
        event: { type: 'DestroyCancelled', at: this.now(), by: scope.by },
        facts: { context: { cancelledDestroyAt: k.destroyAt } },
      };
    });
    return { id, state: key.state, cancelledDestroyAt: cancelled };
  }

  /**
   * Carries out a destruction scheduled for `destroyAt`, once it is due. Two nodes may both try: one
   * append wins, the other's conflicts, re-reads the key (now Destroyed) and is superseded.
   */
  async destroyDue(id: string, destroyAt: string, scope: ChangeScope) {
    const key = await this.store.mutate(id, scope, async (k) => {
      if (k.destroyAt !== destroyAt) throw new DestructionSuperseded(id);
      if (Date.parse(destroyAt) > this.clock.now().getTime())
        throw new SvcError('IllegalOperation', `the destruction of key ${id} is not due before ${destroyAt}`);
      requireTransition(k, 'Destroyed');
      return { event: { type: 'Destroyed', at: this.now(), by: scope.by }, facts: { context: { destroyAt } } };
    });
    this.store.forgetMaterial(key);
    const erasure = await scope.trace.child('journal.erase', () => this.erasure.afterDestroy(id));
    return { id, state: 'Destroyed' as const, destroyedAt: key.destroyedAt!, erasure };
  }

  /**
   * Erases every version below `minVersion` for good: the material rows go with the event, the kept
   * versions are sealed again under a new KWK in the same transaction, and the erase of the files
   * follows like a destroy's (the answer's `erasure`).
   */
  async trim(id: string, minVersion: number, scope: ChangeScope) {
    let previous = 1;
    let erasedVersions = 0;
    const key = await this.store.mutate(id, scope, async (k) => {
      requireTransition(k, 'VersionsTrimmed');
      if (minVersion > k.currentVersion)
        throw new SvcError(
          'InvalidField',
          `minVersion ${minVersion} is past the current version ${k.currentVersion} of key ${id}; the current version is never trimmed`,
        );
      previous = k.minVersion ?? 1;
      if (minVersion <= previous)
        throw new SvcError(
          'IllegalOperation',
          `the versions below ${previous} of key ${id} are trimmed already; minVersion must be above ${previous}`,
        );
      const versions = Object.entries(k.versions).map(([v, { materialId }]) => ({ version: Number(v), materialId }));
      const erased = versions.filter((v) => v.version < minVersion);
      erasedVersions = erased.filter((v) => v.version >= previous).length;
      const kept = versions.filter((v) => v.version >= minVersion).map((v) => v.materialId);
      const rekey = await this.wrapping.rekey(
        id,
        kept,
        erased.map((v) => v.materialId),
        scope.trace,
      );
      return {
        event: { type: 'VersionsTrimmed', at: this.now(), by: scope.by, minVersion },
        facts: {
          context: {
            minVersion: String(minVersion),
            previousMinVersion: String(previous),
            erasedVersions: String(erasedVersions),
          },
        },
        rekey,
      };
    });
    this.store.forgetMaterial(key);
    const erasure = await scope.trace.child('journal.erase', () => this.erasure.afterDestroy(id));
    return { id, state: key.state, currentVersion: key.currentVersion, minVersion: key.minVersion!, erasure };
  }
}

function alreadyScheduled(id: string, destroyAt: string): SvcError {
  return new SvcError(
    'IllegalOperation',
    `key ${id} is already scheduled for destruction at ${destroyAt}; a later request never moves that date (a Human may cancel it and ask again)`,
  );
}
