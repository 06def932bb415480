import type { RootOfTrust, RootOfTrustContext, WrappedKey } from '../ports/root-of-trust.ts';

/**
 * The root of trust the plugins see: the chosen one, with the previous KEKs of other kinds behind it
 * (moving from the local root of trust to cloud-kms, or to pkcs11, or back). New wraps use the chosen one;
 * a key wrapped under a KEK of another kind is unwrapped by that kind's instance until `rewrap` has moved
 * every key to the current KEK. Each instance is a plugin of its own, started, stopped and probed by the
 * plugin lifecycle; the chain only routes calls.
 */
export class RootOfTrustChain implements RootOfTrust {
  readonly name: string;

  constructor(
    private readonly current: RootOfTrust,
    private readonly previous: RootOfTrust[],
  ) {
    this.name = current.name;
  }

  currentKekId(): string {
    return this.current.currentKekId();
  }

  kekIds(): string[] {
    return [...new Set([this.current, ...this.previous].flatMap((r) => r.kekIds()))];
  }

  wrap(kwk: Buffer, keyId: string, ctx?: RootOfTrustContext): Promise<WrappedKey> {
    return this.current.wrap(kwk, keyId, ctx);
  }

  unwrap(wrapped: WrappedKey, keyId: string, ctx?: RootOfTrustContext): Promise<Buffer> {
    const owner = [this.current, ...this.previous].find((r) => r.kekIds().includes(wrapped.kekId)) ?? this.current;
    return owner.unwrap(wrapped, keyId, ctx);
  }

  kekNote(): string | undefined {
    return this.current.kekNote?.();
  }

  unwrapLegacy(blob: Buffer, aad: string): Promise<Buffer> {
    const local = [this.current, ...this.previous].find((r) => r.unwrapLegacy);
    if (!local?.unwrapLegacy) {
      return Promise.reject(
        new Error('0.1 material needs the local KEK it was written under (list it in SVC_CRYPTO_LOCAL_PREVIOUS_KEKS)'),
      );
    }
    return local.unwrapLegacy(blob, aad);
  }
}

/** The chosen root of trust alone, or behind it the previous KEKs of other kinds. */
export function withPreviousKeks(current: RootOfTrust, previous: RootOfTrust[]): RootOfTrust {
  return previous.length === 0 ? current : new RootOfTrustChain(current, previous);
}
