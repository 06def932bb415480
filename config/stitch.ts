/**
 * The loader's (convict's) schema: nested objects of `{doc, format, default, env?, sensitive?}` leaves, made from
 * settings declarations by settings-fragment.ts.
 */
export type ConfigFragment = Record<string, unknown>;

const isLeaf = (node: unknown): boolean =>
  typeof node === 'object' && node !== null && 'default' in node && ('doc' in node || 'format' in node);

// Schema leaves hold functions (format: String), which structuredClone refuses; only the tree is copied.
const cloneTree = (node: ConfigFragment): ConfigFragment =>
  Object.fromEntries(Object.entries(node).map(([k, v]) => [k, isLeaf(v) ? v : cloneTree(v as ConfigFragment)]));

/**
 * Merges plugin fragments into the base schema. Two fragments may share a namespace (journal.*), and
 * may declare the very same leaf object (a shared setting), but never two different leaves of one key:
 * that clash is a programming error in a plugin and is named with both owners.
 */
export function stitchSchema(
  base: ConfigFragment,
  fragments: Array<{ owner: string; fragment: ConfigFragment }>,
): ConfigFragment {
  const out = cloneTree(base);
  const owners = new Map<string, string>();
  const merge = (into: Record<string, unknown>, from: Record<string, unknown>, owner: string, prefix: string): void => {
    for (const [key, node] of Object.entries(from)) {
      const at = prefix ? `${prefix}.${key}` : key;
      if (isLeaf(node)) {
        // A shared setting (the SQL connection of a journal and an audit sink) is one leaf object that
        // several plugins declare; two different declarations of one key are a plugin bug.
        if (into[key] === node) continue;
        if (key in into)
          throw new Error(
            `config key ${at} is declared twice (by ${owners.get(at) ?? 'the base schema'} and ${owner})`,
          );
        into[key] = node;
        owners.set(at, owner);
      } else {
        const existing = into[key];
        if (existing !== undefined && isLeaf(existing))
          throw new Error(`config key ${at} is declared twice (base and ${owner})`);
        into[key] ??= {};
        merge(into[key] as Record<string, unknown>, node as Record<string, unknown>, owner, at);
      }
    }
  };
  for (const { owner, fragment } of fragments) merge(out as Record<string, unknown>, fragment, owner, '');
  return out;
}

/** Every leaf as [dotted key, leaf], in schema order; the docs generator and error messages use it. */
export function schemaLeaves(schema: ConfigFragment, prefix = ''): Array<[string, Record<string, unknown>]> {
  return Object.entries(schema).flatMap(([key, node]) => {
    const at = prefix ? `${prefix}.${key}` : key;
    return isLeaf(node)
      ? [[at, node as Record<string, unknown>] as [string, Record<string, unknown>]]
      : schemaLeaves(node as ConfigFragment, at);
  });
}
