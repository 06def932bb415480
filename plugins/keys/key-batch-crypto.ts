import { envelopeFor, type ManagedKey, SvcError, type TraceScope } from '../../kernel/index.ts';
import { envelopeVersion, open, seal } from './crypto/envelope.ts';
import type { ParsedMaterial } from './crypto/material.ts';
import { requireDigestFits, type SignedData, signData, verifyData } from './crypto/digest-signatures.ts';
import { resolveSigAlgorithm } from './crypto/signatures.ts';
import {
  consumingKey,
  DECRYPTION_FAILED,
  MAX_PLAINTEXT,
  producingKey,
  requireAes,
  type RotationHooks,
} from './key-crypto.ts';
import { requireNotTrimmed, requireUsable } from './key-state.ts';
import type { KeyStore } from './key-store.ts';

/**
 * The versions' material of one key as a batch reads it: each version asked of the store once per
 * batch, however many items name it (the store's cache is keyed per material, but even its lookup and
 * the KWK behind it are paid once, not per item).
 */
class VersionMaterial {
  private readonly read = new Map<number, Promise<ParsedMaterial>>();
  private held: ManagedKey;

  constructor(
    private readonly store: KeyStore,
    key: ManagedKey,
    private readonly trace: TraceScope,
  ) {
    this.held = key;
  }

  /**
   * The key as this node knows it now, not as the batch began: a trim committed while the batch runs
   * (on this node, or on another one and read at the batch's last pause) refuses the next item naming
   * a trimmed version, as the single call does from then on, and the batch lets go of that version's
   * material.
   */
  get key(): ManagedKey {
    const latest = this.store.latest(this.held.id);
    if (latest && latest.seq > this.held.seq) {
      for (const version of this.read.keys())
        if (latest.minVersion !== undefined && version < latest.minVersion) this.read.delete(version);
      this.held = latest;
    }
    return this.held;
  }

  of(version: number): Promise<ParsedMaterial> {
    const key = this.key;
    requireNotTrimmed(key, version);
    let material = this.read.get(version);
    if (!material) this.read.set(version, (material = this.store.materialOf(key, version, this.trace)));
    return material;
  }
}

/**
 * A producing batch keeps the version it began with even when the key rotates meanwhile; should that
 * version then be trimmed, what the batch still made under it could never be read or verified again:
 * its later items are refused as a call naming the trimmed version is.
 */
const requireVersionKept = (store: KeyStore, key: ManagedKey) =>
  requireNotTrimmed(store.latest(key.id) ?? key, key.currentVersion);

/** Encrypts the items of one batch under the key's current version, looked up and checked once. */
export class BatchEncryptor {
  readonly algorithm: string;

  constructor(
    private readonly store: KeyStore,
    readonly key: ManagedKey,
    private readonly secret: Buffer,
    private readonly rotation: RotationHooks,
  ) {
    this.algorithm = `AesGcm${key.spec.sizeBits}`;
  }

  encrypt(plaintext: Buffer, context: Record<string, string>) {
    if (plaintext.length > MAX_PLAINTEXT)
      throw new SvcError(
        'InvalidField',
        `plaintext must be at most ${MAX_PLAINTEXT} bytes; use wrap for envelope encryption of larger data`,
      );
    requireVersionKept(this.store, this.key);
    const ciphertext = seal(this.secret, this.key.id, this.key.currentVersion, context, plaintext);
    this.rotation.afterProduce(this.key);
    return { ciphertext, keyVersion: this.key.currentVersion, algorithm: this.algorithm };
  }
}

/** Decrypts the items of one batch; every failure of an item is the single call's DecryptionFailed. */
export class BatchDecryptor {
  constructor(private readonly material: VersionMaterial) {}

  async decrypt(ciphertext: Buffer, context: Record<string, string>) {
    const key = this.material.key;
    const envelope = envelopeFor(key.id, ciphertext);
    const version = envelope && envelopeVersion(envelope);
    if (version === undefined || !key.versions[version]) throw new SvcError('DecryptionFailed', DECRYPTION_FAILED);
    const { secret } = await this.material.of(version);
    try {
      return { plaintext: open(secret!, key.id, version, context, envelope!), keyVersion: version };
    } catch {
      throw new SvcError('DecryptionFailed', DECRYPTION_FAILED);
    }
  }
}

/** Signs the items of one batch with the key's current version. */
export class BatchSigner {
  constructor(
    private readonly store: KeyStore,
    readonly key: ManagedKey,
    private readonly material: ParsedMaterial,
    private readonly rotation: RotationHooks,
  ) {}

  async sign(data: SignedData, requested: string | undefined) {
    const algorithm = resolveSigAlgorithm(this.key.spec, requested);
    if (data.kind === 'digest') requireDigestFits(algorithm, data.bytes);
    requireVersionKept(this.store, this.key);
    const signature = await signData(algorithm, this.material, data);
    this.rotation.afterProduce(this.key);
    return { signature, algorithm, keyVersion: this.key.currentVersion };
  }
}

/** Verifies the items of one batch against the key's versions, as the single call does. */
export class BatchVerifier {
  constructor(private readonly material: VersionMaterial) {}

  async verify(data: SignedData, signature: Buffer, requested: string | undefined, version: number | undefined) {
    const key = this.material.key;
    const algorithm = resolveSigAlgorithm(key.spec, requested);
    if (data.kind === 'digest') requireDigestFits(algorithm, data.bytes);
    if (version !== undefined && !key.versions[version])
      throw new SvcError('InvalidField', `keyVersion must be between 1 and ${key.currentVersion}`);
    // Without a version: every version still held (trimmed ones are gone), newest first, as the single call.
    const candidates =
      version !== undefined
        ? [version]
        : Array.from({ length: key.currentVersion - (key.minVersion ?? 1) + 1 }, (_, i) => key.currentVersion - i);
    for (const v of candidates) {
      if (verifyData(algorithm, await this.material.of(v), data, signature))
        return { valid: true, algorithm, keyVersion: v };
    }
    return { valid: false, algorithm };
  }
}

/**
 * Batches under one key: the key is read, its state checked and its material opened once per batch,
 * then each item costs only its own cryptography. What would refuse every item (an unknown key, a
 * state or algorithm that does not allow the operation) refuses the batch as it refuses the single call.
 */
export class KeyBatchCrypto {
  constructor(
    private readonly store: KeyStore,
    private readonly rotation: RotationHooks,
  ) {}

  async encryptor(id: string, trace: TraceScope): Promise<BatchEncryptor> {
    const key = await this.producing(id, 'Encrypt', trace);
    requireAes(key, 'Encrypt');
    const { secret } = await this.store.materialOf(key, key.currentVersion, trace);
    return new BatchEncryptor(this.store, key, secret!, this.rotation);
  }

  async decryptor(id: string, trace: TraceScope): Promise<BatchDecryptor> {
    const key = await this.consuming(id, 'Decrypt', trace);
    requireAes(key, 'Decrypt');
    return new BatchDecryptor(new VersionMaterial(this.store, key, trace));
  }

  async signer(id: string, trace: TraceScope): Promise<BatchSigner> {
    const key = await this.producing(id, 'Sign', trace);
    resolveSigAlgorithm(key.spec, undefined); // a key that cannot sign at all refuses the whole batch
    return new BatchSigner(this.store, key, await this.store.materialOf(key, key.currentVersion, trace), this.rotation);
  }

  async verifier(id: string, trace: TraceScope): Promise<BatchVerifier> {
    const key = await this.consuming(id, 'Verify', trace);
    resolveSigAlgorithm(key.spec, undefined);
    return new BatchVerifier(new VersionMaterial(this.store, key, trace));
  }

  /**
   * Checks between items of a long batch that the key still allows the operation: a compromise, revoke
   * or destroy committed while the batch runs stops its remaining items, as it stops later calls. The
   * key read here (afresh from a journal shared with other nodes) is the one the next items see: a trim
   * made meanwhile refuses their trimmed versions.
   */
  async stillUsable(id: string, use: 'produce' | 'consume', operation: string, trace: TraceScope): Promise<void> {
    requireUsable(await this.store.get(id, trace), use, operation);
  }

  private producing(id: string, operation: string, trace: TraceScope): Promise<ManagedKey> {
    return producingKey(this.store, this.rotation, id, operation, trace);
  }

  private consuming(id: string, operation: string, trace: TraceScope): Promise<ManagedKey> {
    return consumingKey(this.store, id, operation, trace);
  }
}
