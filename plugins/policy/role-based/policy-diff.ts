import { AUDIT_BOUNDS, type PolicyDocument } from '../../../kernel/index.ts';

/** A binding name longer than this is cut in the summary, so that one name cannot fill it. */
const NAME_MAX = 64;

/** JSON with object keys sorted: two bindings that differ only in key order are the same binding. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * A binding's name as the summary shows it: cut when long, and percent-encoded (as in a URL) when it holds
 * anything but letters, digits and `_ . @ : / -`: entries are separated by spaces, so a name with a space
 * and a sign in it would otherwise read as entries of its own.
 */
const shown = (name: string) => {
  const safe = /^[A-Za-z0-9_.@:/-]+$/.test(name) ? name : encodeURIComponent(name);
  return safe.length > NAME_MAX ? `${safe.slice(0, NAME_MAX)}…` : safe;
};

/** One entry per binding added (+), changed (~) or removed (-), in that order, for both maps. */
export function bindingChanges(before: PolicyDocument | undefined, after: PolicyDocument): string[] {
  const changes: string[] = [];
  for (const kind of ['roleBindings', 'subjectBindings'] as const) {
    const old = before?.[kind] ?? {};
    const now = after[kind];
    const added = Object.keys(now).filter((name) => !Object.hasOwn(old, name));
    const changed = Object.keys(now).filter(
      (name) => Object.hasOwn(old, name) && canonical(old[name]) !== canonical(now[name]),
    );
    const removed = Object.keys(old).filter((name) => !Object.hasOwn(now, name));
    for (const [sign, names] of [
      ['+', added],
      ['~', changed],
      ['-', removed],
    ] as const)
      for (const name of names) changes.push(`${sign}${kind}.${shown(name)}`);
  }
  return changes;
}

/**
 * What a new version changes, for its audit record (`policy.diff`): `+roleBindings.ops ~subjectBindings.alice
 * -roleBindings.old`, within the bound of one audit context value. When the list does not fit, it ends
 * with how many entries were left out, so a reader knows the summary is partial and reads the versions.
 */
export function policyDiff(before: PolicyDocument | undefined, after: PolicyDocument): string {
  const changes = bindingChanges(before, after);
  if (changes.length === 0) return 'no change';
  const max = AUDIT_BOUNDS.contextValue;
  let summary = '';
  for (let i = 0; i < changes.length; i++) {
    const next = summary === '' ? changes[i]! : `${summary} ${changes[i]}`;
    const rest = changes.length - i - 1;
    // Room is kept for the "(+N more)" that would follow if a later entry did not fit.
    const tail = rest > 0 ? ` (+${rest} more)`.length : 0;
    if (next.length + tail > max) return `${summary} (+${changes.length - i} more)`.trimStart();
    summary = next;
  }
  return summary;
}
