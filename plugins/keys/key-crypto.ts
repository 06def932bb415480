import { envelopeFor, type ManagedKey, SvcError, type TraceScope, UNTRACED } from '../../kernel/index.ts';
import { envelopeVersion, open, seal } from './crypto/envelope.ts';
import { openRaw, RAW_IV_BYTES, RAW_TAG_BYTES, sealRaw } from './crypto/raw-gcm.ts';
import { unwrapKey, wrapKey, wrappedVersion } from './crypto/key-wrap.ts';
import { requireDigestFits, type SignedData, signData, verifyData } from './crypto/digest-signatures.ts';
import { resolveSigAlgorithm } from './crypto/signatures.ts';
import { requireUsable } from './key-state.ts';
import type { KeyStore } from './key-store.ts';

export const MAX_PLAINTEXT = 64 * 1024;
// One message for every decrypt/unwrap failure after the state checks, so errors are no oracle.
export const DECRYPTION_FAILED = 'the ciphertext could not be decrypted with this key and context';

/** Hooks of the rotation scheduler: a due TimeBased key rotates before use; OpCountBased counts uses. */
export interface RotationHooks {
  /** The key to use: the same one, or (when a TimeBased period has run out) a promise of the rotated one. */
  beforeUse(key: ManagedKey): ManagedKey | Promise<ManagedKey>;
  afterProduce(key: ManagedKey): void;
}

export function requireAes(key: ManagedKey, operation: string): void {
  if (key.spec.algorithm !== 'AES')
    throw new SvcError('InvalidField', `${operation} needs an AES key; key ${key.id} is ${key.spec.algorithm}`);
}

function checkDek(dek: Buffer): void {
  if (dek.length < 16 || dek.length > 512 || dek.length % 8 !== 0) {
    throw new SvcError('InvalidField', 'the data key must be 16..512 bytes and a multiple of 8 (RFC 3394)');
  }
}

/**
 * The key for a call that makes new output, if its state allows (key-state.ts); rotated first when its policy says it
 * is due.
 */
export async function producingKey(
  store: KeyStore,
  rotation: RotationHooks,
  id: string,
  operation: string,
  trace: TraceScope,
): Promise<ManagedKey> {
  const key = await store.get(id, trace);
  requireUsable(key, 'produce', operation);
  return rotation.beforeUse(key);
}

/** The key for a call that reads old output, if its state allows (key-state.ts). */
export async function consumingKey(
  store: KeyStore,
  id: string,
  operation: string,
  trace: TraceScope,
): Promise<ManagedKey> {
  const key = await store.get(id, trace);
  requireUsable(key, 'consume', operation);
  return key;
}

/**
 * Sign, verify, encrypt, decrypt, wrap and unwrap under a key, allowed only in the states that permit it (see
 * key-state.ts).
 */
export class KeyCrypto {
  constructor(
    private readonly store: KeyStore,
    private readonly rotation: RotationHooks,
  ) {}

  private producing(id: string, operation: string, trace: TraceScope): Promise<ManagedKey> {
    return producingKey(this.store, this.rotation, id, operation, trace);
  }

  private consuming(id: string, operation: string, trace: TraceScope): Promise<ManagedKey> {
    return consumingKey(this.store, id, operation, trace);
  }

  /** Signs the message, or (RSA and ECDSA) the hash of one as the algorithm would have hashed it. */
  async sign(id: string, data: SignedData, requested: string | undefined, trace: TraceScope = UNTRACED) {
    const key = await this.producing(id, 'Sign', trace);
    const algorithm = resolveSigAlgorithm(key.spec, requested);
    if (data.kind === 'digest') requireDigestFits(algorithm, data.bytes);
    const signature = await signData(algorithm, await this.store.materialOf(key, key.currentVersion, trace), data);
    this.rotation.afterProduce(key);
    return { signature, algorithm, keyVersion: key.currentVersion };
  }

  /** Checks the given version, or every version newest first; valid:false is an answer, not an error. */
  async verify(
    id: string,
    data: SignedData,
    signature: Buffer,
    requested: string | undefined,
    version: number | undefined,
    trace: TraceScope = UNTRACED,
  ) {
    const key = await this.consuming(id, 'Verify', trace);
    const algorithm = resolveSigAlgorithm(key.spec, requested);
    if (data.kind === 'digest') requireDigestFits(algorithm, data.bytes);
    if (version !== undefined && !key.versions[version])
      throw new SvcError('InvalidField', `keyVersion must be between 1 and ${key.currentVersion}`);
    // Without a version: every version still held (trimmed ones are gone), newest first.
    const candidates =
      version !== undefined
        ? [version]
        : Array.from({ length: key.currentVersion - (key.minVersion ?? 1) + 1 }, (_, i) => key.currentVersion - i);
    for (const v of candidates) {
      if (verifyData(algorithm, await this.store.materialOf(key, v, trace), data, signature))
        return { valid: true, algorithm, keyVersion: v };
    }
    return { valid: false, algorithm };
  }

  async encrypt(id: string, plaintext: Buffer, context: Record<string, string>, trace: TraceScope = UNTRACED) {
    if (plaintext.length > MAX_PLAINTEXT)
      throw new SvcError(
        'InvalidField',
        `plaintext must be at most ${MAX_PLAINTEXT} bytes; use wrap for envelope encryption of larger data`,
      );
    const key = await this.producing(id, 'Encrypt', trace);
    requireAes(key, 'Encrypt');
    const { secret } = await this.store.materialOf(key, key.currentVersion, trace);
    const ciphertext = seal(secret!, key.id, key.currentVersion, context, plaintext);
    this.rotation.afterProduce(key);
    return { ciphertext, keyVersion: key.currentVersion, algorithm: `AesGcm${key.spec.sizeBits}` };
  }

  async decrypt(id: string, ciphertext: Buffer, context: Record<string, string>, trace: TraceScope = UNTRACED) {
    const key = await this.consuming(id, 'Decrypt', trace);
    requireAes(key, 'Decrypt');
    const envelope = envelopeFor(key.id, ciphertext);
    const version = envelope && envelopeVersion(envelope);
    if (version === undefined || !key.versions[version]) throw new SvcError('DecryptionFailed', DECRYPTION_FAILED);
    const { secret } = await this.store.materialOf(key, version, trace);
    try {
      return { plaintext: open(secret!, key.id, version, context, envelope!), keyVersion: version };
    } catch {
      throw new SvcError('DecryptionFailed', DECRYPTION_FAILED);
    }
  }

  /** AES-GCM in parts (raw-gcm.ts): the caller's 96-bit IV, or a fresh one, and its additional data as the AAD. */
  async encryptRaw(id: string, plaintext: Buffer, aad: Buffer, trace: TraceScope = UNTRACED) {
    if (plaintext.length > MAX_PLAINTEXT)
      throw new SvcError(
        'InvalidField',
        `plaintext must be at most ${MAX_PLAINTEXT} bytes; use wrap for envelope encryption of larger data`,
      );
    const key = await this.producing(id, 'Encrypt', trace);
    requireAes(key, 'Encrypt');
    const { secret } = await this.store.materialOf(key, key.currentVersion, trace);
    const sealed = sealRaw(secret!, plaintext, aad);
    this.rotation.afterProduce(key);
    return { ...sealed, keyVersion: key.currentVersion, algorithm: `AesGcm${key.spec.sizeBits}` };
  }

  /**
   * Opens AES-GCM parts with the given version, or else with each version still held, newest first: no
   * envelope names the version, and the tag authenticates under the version that sealed and no other
   * (a wrong key passes GCM's check with probability 2^-128), so trying them finds it. A failure costs
   * one attempt per version held; trimming old versions bounds it.
   */
  async decryptRaw(
    id: string,
    ciphertext: Buffer,
    iv: Buffer,
    tag: Buffer,
    aad: Buffer,
    version: number | undefined,
    trace: TraceScope = UNTRACED,
  ) {
    if (iv.length !== RAW_IV_BYTES)
      throw new SvcError(
        'InvalidField',
        `the IV must be ${RAW_IV_BYTES} bytes (AES-GCM's 96-bit IV), not ${iv.length}`,
      );
    if (tag.length !== RAW_TAG_BYTES)
      throw new SvcError('InvalidField', `the authentication tag must be ${RAW_TAG_BYTES} bytes, not ${tag.length}`);
    const key = await this.consuming(id, 'Decrypt', trace);
    requireAes(key, 'Decrypt');
    if (version !== undefined && !key.versions[version])
      throw new SvcError('InvalidField', `keyVersion must be between 1 and ${key.currentVersion}`);
    const candidates =
      version !== undefined
        ? [version]
        : Array.from({ length: key.currentVersion - (key.minVersion ?? 1) + 1 }, (_, i) => key.currentVersion - i);
    for (const v of candidates) {
      const { secret } = await this.store.materialOf(key, v, trace);
      try {
        return { plaintext: openRaw(secret!, ciphertext, iv, tag, aad), keyVersion: v };
      } catch {
        // Not this version (or not this key, IV, tag or additional data): the next, then one fixed message.
      }
    }
    throw new SvcError('DecryptionFailed', DECRYPTION_FAILED);
  }

  async wrap(id: string, dek: Buffer, trace: TraceScope = UNTRACED) {
    checkDek(dek);
    const key = await this.producing(id, 'Wrap', trace);
    requireAes(key, 'Wrap');
    const { secret } = await this.store.materialOf(key, key.currentVersion, trace);
    const wrapped = wrapKey(secret!, key.currentVersion, dek);
    this.rotation.afterProduce(key);
    return { wrapped, keyVersion: key.currentVersion, algorithm: `AesKeyWrap${key.spec.sizeBits}` };
  }

  async unwrap(id: string, wrapped: Buffer, trace: TraceScope = UNTRACED) {
    const key = await this.consuming(id, 'Unwrap', trace);
    requireAes(key, 'Unwrap');
    const version = wrappedVersion(wrapped);
    if (version === undefined || !key.versions[version]) throw new SvcError('DecryptionFailed', DECRYPTION_FAILED);
    const { secret } = await this.store.materialOf(key, version, trace);
    try {
      return { dek: unwrapKey(secret!, wrapped), keyVersion: version };
    } catch {
      throw new SvcError('DecryptionFailed', DECRYPTION_FAILED);
    }
  }
}
