import type { RootOfTrust } from '../../../kernel/index.ts';

/**
 * A root of trust that offers previous KEKs only: the plugin lifecycle starts and stops it, but it has
 * no readiness probe of its own, so an unreachable previous KEK (a retired cloud KMS key's region
 * down) fails the unwraps that need it, not the node's readiness.
 */
export function unprobed(root: RootOfTrust): RootOfTrust {
  return {
    name: root.name,
    start: root.start && (() => root.start!()),
    stop: root.stop && (() => root.stop!()),
    currentKekId: () => root.currentKekId(),
    kekIds: () => root.kekIds(),
    wrap: (kwk, keyId, ctx) => root.wrap(kwk, keyId, ctx),
    unwrap: (wrapped, keyId, ctx) => root.unwrap(wrapped, keyId, ctx),
    ...(root.unwrapLegacy ? { unwrapLegacy: (blob: Buffer, aad: string) => root.unwrapLegacy!(blob, aad) } : {}),
  };
}
