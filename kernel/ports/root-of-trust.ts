import type { TraceScope } from '../observability/trace-scope.ts';
import type { Lifecycle } from './lifecycle.ts';
import { createPortRef } from './port-ref.ts';

/** A key-wrapping key as the root of trust wrapped it: the blob, and the KEK that can unwrap it. */
export interface WrappedKey {
  kekId: string;
  blob: Buffer;
}

/** Per call: the operation's trace (child spans) and a signal that cancels a remote call. */
export interface RootOfTrustContext {
  trace?: TraceScope;
  signal?: AbortSignal;
}

/**
 * The top of the key hierarchy: key-encryption keys (KEKs) that wrap one key-wrapping key (KWK) per
 * managed key; the KWK, not the root of trust, wraps every version's material. `wrap` binds the key id
 * (a KWK moved to another key does not unwrap) and uses the current KEK; `unwrap` accepts any KEK the
 * instance knows (the current one and the previous ones being rotated out) and throws on tampering or
 * an unknown KEK. Implementations never log or return a KEK. A root of trust that cannot reach its KEKs
 * (a cloud KMS down or throttling) throws SvcError ServiceUnavailable with `retryAfterSeconds`.
 */
export interface RootOfTrust extends Lifecycle {
  readonly name: string;
  /** The KEK new wraps use; known after start. */
  currentKekId(): string;
  /** Every KEK this instance can unwrap with, the current one first. */
  kekIds(): string[];
  wrap(kwk: Buffer, keyId: string, ctx?: RootOfTrustContext): Promise<WrappedKey>;
  unwrap(wrapped: WrappedKey, keyId: string, ctx?: RootOfTrustContext): Promise<Buffer>;
  /**
   * Reads material that svc-kms 0.1 wrapped directly under the local KEK (before the hierarchy), so that
   * start-up can move it under a KWK. Only the local root of trust has it.
   */
  unwrapLegacy?(blob: Buffer, aad: string): Promise<Buffer>;
  /**
   * A sentence for the operator about where the current KEK came from, when that explains a boot that
   * fails on it (the local root of trust made a new KEK file at this start because none was there: a
   * restore that left kek.key behind). Never the KEK itself.
   */
  kekNote?(): string | undefined;
}

export const rootOfTrustPort = createPortRef<RootOfTrust>('rootOfTrust');

/**
 * KEKs of a root of trust of another kind than the chosen one, which still unwrap while an operator moves
 * keys off that kind (`rewrap`): each kind offers its previous KEKs from its own settings, and the kernel
 * puts them behind the chosen root of trust (kernel/crypto/root-of-trust-chain.ts), so that no root of
 * trust knows another kind's implementation. New wraps always use the chosen root of trust.
 */
export const previousKeksPort = createPortRef<RootOfTrust>('previousKeks', { multiple: true });
