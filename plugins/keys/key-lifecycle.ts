import { SvcError } from '../../kernel/errors.ts';
import type { ManagedKey } from '../../kernel/model/index.ts';
import type { Clock } from '../../kernel/ports/clock.ts';
import type { KeyStore } from './key-store.ts';
import { requireTransition } from './key-state.ts';
import { parseRotationPolicy } from './rotation-policy.ts';
import { normaliseSpec, type KeySpecRequest } from './spec.ts';

/** ManagedKey as clients see it (SPEC 2): journal bookkeeping left out. */
export function keyView(key: ManagedKey) {
  const { seq: _seq, versions: _versions, ...view } = key;
  return view;
}

/** The key lifecycle of SPEC 3 + DECISIONS: create, activate, rotate, revoke, compromise, destroy. */
export class KeyLifecycle {
  constructor(
    private readonly store: KeyStore,
    private readonly clock: Clock,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  get(id: string): Promise<ManagedKey> {
    return this.store.get(id);
  }

  async create(request: KeySpecRequest, by: string): Promise<ManagedKey> {
    return this.store.create(normaliseSpec(request), by, this.now());
  }

  async activate(id: string, by: string) {
    const key = await this.store.mutate(id, async (k) => {
      requireTransition(k, 'KeyActivated');
      return { type: 'KeyActivated', at: this.now(), by };
    });
    return { id, state: key.state, activatedAt: key.activatedAt! };
  }

  /** `ifVersion` makes the rotation conditional (scheduled rotations): it is refused when another rotation won. */
  async rotate(id: string, by: string, request: { policy?: string; reason?: string; ifVersion?: number }) {
    if (request.policy !== undefined) parseRotationPolicy(request.policy);
    let previousVersion = 0;
    // Material is made once: if another writer wins the race, the same material becomes the next version.
    let materialId: string | undefined;
    const key = await this.store.mutate(id, async (k) => {
      requireTransition(k, 'Rotated');
      if (request.ifVersion !== undefined && k.currentVersion !== request.ifVersion) {
        throw new SvcError('IllegalOperation', `key ${id} was already rotated to version ${k.currentVersion}`);
      }
      previousVersion = k.currentVersion;
      materialId ??= await this.store.storeNewMaterial(id, k.spec);
      return {
        type: 'Rotated', at: this.now(), by, newVersion: k.currentVersion + 1, materialId,
        policy: request.policy ?? k.rotationPolicy,
        ...(request.reason ? { reason: request.reason } : {}),
      };
    });
    return { id, state: key.state, previousVersion, currentVersion: key.currentVersion, rotatedAt: key.rotatedAt!, rotationPolicy: key.rotationPolicy };
  }

  async revoke(id: string, by: string, reason: string | undefined) {
    const key = await this.store.mutate(id, async (k) => {
      requireTransition(k, 'Revoked');
      return { type: 'Revoked', at: this.now(), by, ...(reason ? { reason } : {}) };
    });
    this.store.forgetMaterial(key);
    return { id, state: key.state, revokedAt: key.revokedAt!, ...(reason ? { reason } : {}) };
  }

  async compromise(id: string, by: string, reason: string) {
    if (reason.trim() === '') throw new SvcError('InvalidField', 'reason must not be blank');
    const key = await this.store.mutate(id, async (k) => {
      requireTransition(k, 'Compromised');
      return { type: 'Compromised', at: this.now(), by, reason };
    });
    this.store.forgetMaterial(key);
    return { id, state: key.state, compromisedAt: key.compromisedAt!, reason };
  }

  /** Erases every version's material for good; the events stay, so GET still answers Destroyed. */
  async destroy(id: string, by: string) {
    const key = await this.store.mutate(id, async (k) => {
      requireTransition(k, 'Destroyed');
      return { type: 'Destroyed', at: this.now(), by };
    });
    await this.store.eraseMaterial(key);
    return { id, state: key.state, destroyedAt: key.destroyedAt! };
  }

  async publicKey(id: string, version: number | undefined) {
    const key = await this.store.get(id);
    if (key.spec.objectType !== 'PrivateKey') throw new SvcError('IllegalOperation', `key ${id} is a ${key.spec.algorithm} key and has no public key`);
    if (key.state === 'Destroyed') throw new SvcError('IllegalOperation', `key ${id} is Destroyed`);
    const keyVersion = version ?? key.currentVersion;
    const material = await this.store.materialOf(key, keyVersion);
    return {
      id,
      keyVersion,
      algorithm: key.spec.algorithm,
      ...(key.spec.curve ? { curve: key.spec.curve } : {}),
      publicKeyPem: material.publicKey!.export({ type: 'spki', format: 'pem' }) as string,
    };
  }
}
