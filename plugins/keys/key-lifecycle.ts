import { type Clock, type ManagedKey, type ResourceFacts, SvcError, type TraceScope } from '../../kernel/index.ts';
import type { ErasureState, ErasureWorker } from './erasure-worker.ts';
import type { ChangeScope, KeyStore } from './key-store.ts';
import { requireEnabled, requireNotScheduled, requireTransition } from './key-state.ts';
import { parseRotationPolicy } from './rotation-policy.ts';
import { normaliseSpec, type KeySpecRequest } from './spec.ts';

/** ManagedKey as clients see it: journal bookkeeping left out, the aliases naming it added (a new key has none). */
export function keyView(key: ManagedKey, aliases?: ReadonlyMap<string, string[]>) {
  const { seq: _seq, versions: _versions, ...view } = key;
  return { ...view, aliases: aliases?.get(key.id) ?? [] };
}

/**
 * The key lifecycle: create, activate, rotate, revoke, compromise, destroy. Every
 * change is appended together with its audit record when the scope carries one (the pipeline's outbox).
 */
export class KeyLifecycle {
  constructor(
    private readonly store: KeyStore,
    private readonly clock: Clock,
    private readonly erasure: ErasureWorker,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  get(id: string, trace?: TraceScope): Promise<ManagedKey> {
    return this.store.get(id, trace);
  }

  /** The key's facts for key-scoped policy (owner, name), undefined for an unknown key. */
  facts(id: unknown): Promise<ResourceFacts | undefined> {
    return this.store.facts(id);
  }

  /** `activate`: created Active in the same append (the operation checked that the caller may activate). */
  async create(
    request: KeySpecRequest,
    scope: ChangeScope,
    options: { activate?: boolean; awaitMaterial?: boolean } = {},
  ): Promise<ManagedKey> {
    const { activate = false, awaitMaterial = false } = options;
    const spec = normaliseSpec(request);
    // The owner is audited with the creation: an agent's row names the agent as actor and its parent as owner.
    const context = {
      algorithm: spec.algorithm,
      sizeBits: String(spec.sizeBits),
      ...(spec.curve ? { curve: spec.curve } : {}),
      ...(spec.parameterSet ? { parameterSet: spec.parameterSet } : {}),
      ...(spec.exportable ? { exportable: 'true' } : {}),
      owner: scope.owner ?? scope.by,
      ...(scope.tenant ? { tenant: scope.tenant } : {}),
      ...(activate ? { activated: 'true' } : {}),
      ...(awaitMaterial ? { origin: 'imported', awaitingMaterial: 'true' } : {}),
    };
    return this.store.create(spec, scope, this.now(), (id) => ({ resource: id, context }), { activate, awaitMaterial });
  }

  async activate(id: string, scope: ChangeScope) {
    const key = await this.store.mutate(id, scope, async (k) => {
      requireTransition(k, 'KeyActivated');
      if (k.awaitingMaterial)
        throw new SvcError('IllegalOperation', `key ${id} awaits its imported material; import it before activating`);
      return { event: { type: 'KeyActivated', at: this.now(), by: scope.by } };
    });
    return { id, state: key.state, activatedAt: key.activatedAt! };
  }

  /** `ifVersion` makes the rotation conditional (scheduled rotations): it is refused when another rotation won. */
  async rotate(id: string, scope: ChangeScope, request: { policy?: string; reason?: string; ifVersion?: number }) {
    if (request.policy !== undefined) parseRotationPolicy(request.policy);
    let previousVersion = 0;
    // Material is made once: if another writer wins the race, the same material becomes the next version.
    let materialId: string | undefined;
    // ... unless a trim won the race: it gave the key a new KWK, and material sealed under the old one would never
    // open.
    let sealedUnder: number | undefined;
    const key = await this.store.mutate(id, scope, async (k) => {
      requireTransition(k, 'Rotated');
      if (request.ifVersion !== undefined && k.currentVersion !== request.ifVersion) {
        throw new SvcError(
          'IllegalOperation',
          `key ${id} is at version ${k.currentVersion}, not ${request.ifVersion}; not rotated`,
        );
      }
      previousVersion = k.currentVersion;
      if (sealedUnder !== (k.minVersion ?? 1)) materialId = undefined;
      sealedUnder = k.minVersion ?? 1;
      materialId ??= await this.store.storeNewMaterial(id, k.spec, scope.trace);
      const policy = request.policy ?? k.rotationPolicy;
      return {
        event: {
          type: 'Rotated',
          at: this.now(),
          by: scope.by,
          newVersion: k.currentVersion + 1,
          materialId,
          policy,
          ...(request.reason ? { reason: request.reason } : {}),
        },
        facts: {
          context: { previousVersion: String(k.currentVersion), currentVersion: String(k.currentVersion + 1), policy },
        },
      };
    });
    return {
      id,
      state: key.state,
      previousVersion,
      currentVersion: key.currentVersion,
      rotatedAt: key.rotatedAt!,
      rotationPolicy: key.rotationPolicy,
    };
  }

  async revoke(id: string, scope: ChangeScope, reason: string | undefined) {
    const key = await this.store.mutate(id, scope, async (k) => {
      requireTransition(k, 'Revoked');
      return { event: { type: 'Revoked', at: this.now(), by: scope.by, ...(reason ? { reason } : {}) } };
    });
    this.store.forgetMaterial(key);
    return { id, state: key.state, revokedAt: key.revokedAt!, ...(reason ? { reason } : {}) };
  }

  async compromise(id: string, scope: ChangeScope, reason: string) {
    if (reason.trim() === '') throw new SvcError('InvalidField', 'reason must not be blank');
    const key = await this.store.mutate(id, scope, async (k) => {
      requireTransition(k, 'Compromised');
      return { event: { type: 'Compromised', at: this.now(), by: scope.by, reason } };
    });
    this.store.forgetMaterial(key);
    return { id, state: key.state, compromisedAt: key.compromisedAt!, reason };
  }

  /**
   * Appends Destroyed; the journal deletes the key's KWK and every version's material in the same
   * transaction and records the erasure task that the background erase then completes. The events stay,
   * so GET still answers Destroyed. The answer says whether the erase of the storage is complete or
   * still pending (a reader of SQLite's WAL, a lock on PostgreSQL); either way nothing after the commit
   * can fail the call. DELETE again on a Destroyed key whose erase is still pending tries it once more
   * and answers where it stands (a client's way to follow it); one whose material an older version left
   * stored is deleted and erased now; a Destroyed key already erased is 409, as any refused transition.
   */
  async destroy(id: string, scope: ChangeScope) {
    const before = await this.store.get(id, scope.trace);
    if (before.state === 'Destroyed') {
      if (await this.store.hasMaterial(id)) await this.store.scheduleErasure(before, scope.trace);
      else if (!(await this.erasure.isPending(id))) requireTransition(before, 'Destroyed');
      return {
        id,
        state: 'Destroyed' as const,
        destroyedAt: before.destroyedAt!,
        erasure: await this.erase(id, scope),
      };
    }
    const key = await this.store.mutate(id, scope, async (k) => {
      // Scheduled: only the scheduler carries it out; a DELETE must not cut the waiting period short.
      if (k.destroyAt)
        throw new SvcError(
          'IllegalOperation',
          `key ${id} is already scheduled for destruction at ${k.destroyAt}; a later request never moves that date (a Human may cancel it and ask again)`,
        );
      requireTransition(k, 'Destroyed');
      return { event: { type: 'Destroyed', at: this.now(), by: scope.by } };
    });
    this.store.forgetMaterial(key);
    return { id, state: 'Destroyed' as const, destroyedAt: key.destroyedAt!, erasure: await this.erase(id, scope) };
  }

  private erase(id: string, scope: ChangeScope): Promise<ErasureState> {
    return scope.trace.child('journal.erase', () => this.erasure.afterDestroy(id));
  }

  async publicKey(id: string, version: number | undefined, trace?: TraceScope) {
    const key = await this.store.get(id, trace);
    if (key.spec.objectType !== 'PrivateKey')
      throw new SvcError('IllegalOperation', `key ${id} is a ${key.spec.algorithm} key and has no public key`);
    if (key.state === 'Destroyed') throw new SvcError('IllegalOperation', `key ${id} is Destroyed`);
    requireEnabled(key, 'public-key');
    requireNotScheduled(key, 'public-key');
    const keyVersion = version ?? key.currentVersion;
    const material = await this.store.materialOf(key, keyVersion, trace);
    return {
      id,
      keyVersion,
      algorithm: key.spec.algorithm,
      ...(key.spec.curve ? { curve: key.spec.curve } : {}),
      ...(key.spec.parameterSet ? { parameterSet: key.spec.parameterSet } : {}),
      publicKeyPem: material.publicKey!.export({ type: 'spki', format: 'pem' }) as string,
    };
  }
}
