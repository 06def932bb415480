/**
 * Types of configuration values, inferred from a convict fragment: a plugin declares its fragment once
 * (its config.ts) and reads typed values from it, without a second hand-written type to drift.
 */
type Leaf = { default: unknown; format?: unknown };

type LeafValue<L> = L extends { format: StringConstructor }
  ? string
  : L extends { format: NumberConstructor | 'nat' | 'int' | 'port' | 'duration' }
    ? number
    : L extends { format: BooleanConstructor }
      ? boolean
      : L extends { format: ArrayConstructor }
        ? unknown[]
        : L extends { format: ObjectConstructor }
          ? Record<string, unknown>
          : L extends { format: readonly (infer E)[] }
            ? E
            : L extends { default: infer D }
              ? D
              : unknown;

/** The validated values of a fragment, as the kernel hands them to the plugin (frozen). */
export type ConfigValues<F> = { readonly [K in keyof F]: F[K] extends Leaf ? LeafValue<F[K]> : ConfigValues<F[K]> };

/** Identity helper that keeps a fragment's literal types (enum formats) for ConfigValues. */
export function defineConfig<const F extends Record<string, unknown>>(fragment: F): F {
  return fragment;
}
