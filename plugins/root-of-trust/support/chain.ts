import type { RootOfTrust, RootOfTrustContext, WrappedKey } from '../../../kernel/index.ts';

/**
 * The configured root of trust, plus the previous KEKs of another kind (moving from the local root of
 * trust to cloud-kms, or back): new wraps use the current one; a key wrapped under a KEK of the other
 * kind is unwrapped by it until `rewrap` has moved every key to the current KEK.
 */
export class RootOfTrustChain implements RootOfTrust {
  readonly name: string;

  constructor(
    private readonly current: RootOfTrust,
    private readonly previous: RootOfTrust[],
  ) {
    this.name = current.name;
  }

  async start(): Promise<void> {
    await this.current.start?.();
    for (const p of this.previous) await p.start?.();
  }

  async stop(): Promise<void> {
    for (const p of [this.current, ...this.previous]) await p.stop?.();
  }

  async probe(): Promise<void> {
    await this.current.probe?.();
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
    if (!local)
      return Promise.reject(
        new Error('0.1 material needs the local KEK it was written under (list it in SVC_CRYPTO_LOCAL_PREVIOUS_KEKS)'),
      );
    return local.unwrapLegacy!(blob, aad);
  }
}
