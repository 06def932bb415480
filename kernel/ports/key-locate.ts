import type { KeyAlgorithm, KeyEvent, KeyState } from '../model/index.ts';

/**
 * The keys a principal may act on, as conditions a journal can match in its key index: every key, or
 * the keys matching any of the lists (owner subjects, tenants, name globs with `*`, key ids). A policy
 * gives it (Policy.keyScope) so that finding keys reads only rows the caller may see: scanning every
 * key and dropping the hidden ones would cost a scan per call and tell the caller, through page sizes
 * and cursors, that hidden keys match its filter.
 */
export type KeyScope = 'every' | { owners: string[]; tenants: string[]; names: string[]; ids: string[] };

export const NO_KEYS: KeyScope = { owners: [], tenants: [], names: [], ids: [] };

/** What Locate filters on. Every field narrows; absent fields do not. */
export interface LocateFilter {
  /** An exact name, or a glob where `*` matches any run of characters (case-sensitive). */
  name?: string;
  state?: KeyState;
  algorithm?: KeyAlgorithm;
  owner?: string;
  /** ISO 8601 UTC, exclusive. */
  createdAfter?: string;
  /** ISO 8601 UTC, exclusive. */
  createdBefore?: string;
  /** Tags the key must carry, each with exactly this value (all must match). */
  tags?: Array<[key: string, value: string]>;
  /** Absent or 'every': no restriction. */
  scope?: KeyScope;
}

/** Where a page ended: keys are ordered newest first, by (createdAt, id) descending. */
export interface LocatePosition {
  createdAt: string;
  id: string;
}

/**
 * What one locate read: the matching rows, and where it stopped reading when it read as many rows as
 * it reads at once without filling `limit` (more rows may match after `scannedTo`).
 */
export interface LocatedRows {
  keys: IndexedKey[];
  scannedTo?: LocatePosition;
}

/** A key as the journal's key index holds it: what Locate filters and orders on. */
export interface IndexedKey {
  id: string;
  name: string;
  algorithm: string;
  state: KeyState;
  owner: string;
  tenant?: string;
  createdAt: string;
  /** Its tags, for journals that match tag filters on the row itself (others keep them in a table of their own). */
  tags?: Record<string, string>;
}

/** The state a key is in after `event`, for the events that change it (undefined for the others). */
export function stateAfter(event: KeyEvent): KeyState | undefined {
  switch (event.type) {
    case 'KeyCreated':
      return 'PreActive';
    case 'KeyActivated':
      return 'Active';
    case 'Revoked':
      return 'Deactivated';
    case 'Compromised':
      return 'Compromised';
    case 'Destroyed':
      return 'Destroyed';
    default:
      return undefined;
  }
}

/** A key's tags after a TagsChanged event (merged, then the removed ones dropped). */
export function tagsAfter(
  tags: Record<string, string> | undefined,
  event: Extract<KeyEvent, { type: 'TagsChanged' }>,
): Record<string, string> {
  const next = { ...tags, ...event.set };
  for (const removed of event.removed ?? []) delete next[removed];
  return next;
}

/** The index row a KeyCreated event makes (a 0.1 event has no owner: its creator is it). */
export function indexedKeyOf(keyId: string, event: Extract<KeyEvent, { type: 'KeyCreated' }>): IndexedKey {
  return {
    id: keyId,
    name: event.spec.name,
    algorithm: event.spec.algorithm,
    state: 'PreActive',
    owner: event.owner ?? event.by,
    ...(event.tenant ? { tenant: event.tenant } : {}),
    createdAt: event.at,
    ...(event.spec.tags ? { tags: { ...event.spec.tags } } : {}),
  };
}

/**
 * A name glob (`*`: any run of characters, everything else literal) as a whole-string matcher. Names
 * are chosen by callers and globs come from callers (Locate) and from configuration (`name:` key
 * patterns), so it must never backtrack: the parts between stars are found left to right, each at its
 * first place after the previous one, which is enough when `*` is the only wildcard (a later place for a
 * part only leaves less room for the parts after it). One match costs at most the name's length times
 * the glob's, whatever the number of stars.
 */
export function nameGlob(glob: string): (name: string) => boolean {
  if (!glob.includes('*')) return (name) => name === glob;
  const parts = glob.split('*');
  const first = parts[0]!;
  const last = parts.at(-1)!;
  const middle = parts.slice(1, -1).filter((part) => part !== '');
  const fixed = first.length + last.length;
  return (name) => {
    if (name.length < fixed || !name.startsWith(first) || !name.endsWith(last)) return false;
    let at = first.length;
    const end = name.length - last.length;
    for (const part of middle) {
      const found = name.indexOf(part, at);
      if (found < 0 || found + part.length > end) return false;
      at = found + part.length;
    }
    return true;
  };
}

/** Whether an index row passes a filter: the reference semantics every journal's `locate` follows. */
export function matchesLocate(key: IndexedKey, filter: LocateFilter): boolean {
  if (filter.name !== undefined && !nameGlob(filter.name)(key.name)) return false;
  if (filter.state !== undefined && key.state !== filter.state) return false;
  if (filter.algorithm !== undefined && key.algorithm !== filter.algorithm) return false;
  if (filter.owner !== undefined && key.owner !== filter.owner) return false;
  if (filter.createdAfter !== undefined && !(key.createdAt > filter.createdAfter)) return false;
  if (filter.createdBefore !== undefined && !(key.createdAt < filter.createdBefore)) return false;
  if (filter.tags?.some(([name, value]) => !key.tags || !Object.hasOwn(key.tags, name) || key.tags[name] !== value))
    return false;
  const scope = filter.scope;
  if (scope === undefined || scope === 'every') return true;
  return (
    scope.owners.includes(key.owner) ||
    (key.tenant !== undefined && scope.tenants.includes(key.tenant)) ||
    scope.ids.includes(key.id) ||
    scope.names.some((glob) => nameGlob(glob)(key.name))
  );
}

/** True when `key` comes after `position` in Locate's order (newest first, then id descending). */
export function isAfter(key: IndexedKey, position: LocatePosition | undefined): boolean {
  if (!position) return true;
  return key.createdAt < position.createdAt || (key.createdAt === position.createdAt && key.id < position.id);
}
