import {
  type IndexedKey,
  isAlias,
  type KeyJournal,
  type LocateFilter,
  type LocatePosition,
  type ManagedKey,
  matchesLocate,
  type OperationCall,
  SvcError,
  timestampField,
} from '../../kernel/index.ts';
import type { KeyStore } from './key-store.ts';
import { decodeCursor, encodeCursor } from './locate-cursor.ts';

/**
 * Journal reads one Locate call makes at most (each reads a bounded number of index rows); past them
 * the caller gets a cursor to go on from there, so no call scans the whole index.
 */
export const LOCATE_READS_PER_CALL = 3;
export const LOCATE_DEFAULT_LIMIT = 100;

export interface LocateQuery {
  name?: string;
  state?: LocateFilter['state'];
  algorithm?: LocateFilter['algorithm'];
  owner?: string;
  createdAfter?: string;
  createdBefore?: string;
  /** `k:v` (one, or a list: all must match). */
  tag?: string | string[];
  limit?: number;
  cursor?: string;
}

export interface LocatedPage {
  keys: ManagedKey[];
  nextCursor?: string;
  /** Matching rows checked with the policy, for the audit record. */
  checked: number;
}

/**
 * Finding keys (Locate): reads the journal's key index newest first, narrowed in the query by the
 * caller's filters and by the keys the policy lets it read (Get), checks every row with the policy
 * once more, and answers each key as GET /v1/keys/{id} shows it. One call makes a bounded number of
 * journal reads: a page that is not full by then ends with a cursor to continue from.
 */
export class KeyLocator {
  constructor(
    private readonly journal: KeyJournal,
    private readonly store: KeyStore,
  ) {}

  async locate(query: LocateQuery, call: OperationCall): Promise<LocatedPage> {
    // A name that is an alias finds the key it names (KMIP clients locate by Name): by that key's name and id.
    let onlyId: string | undefined;
    if (isAlias(query.name)) {
      onlyId = await this.journal.aliases.resolve(query.name);
      const facts = onlyId === undefined ? undefined : await this.store.facts(onlyId);
      if (!facts) return { keys: [], checked: 0 };
      query = { ...query, name: facts.name };
    }
    const limit = query.limit ?? LOCATE_DEFAULT_LIMIT;
    const scope = call.keyScope('Get');
    const filter: LocateFilter = {
      ...(query.name ? { name: query.name } : {}),
      ...(query.state ? { state: query.state } : {}),
      ...(query.algorithm ? { algorithm: query.algorithm } : {}),
      ...(query.owner ? { owner: query.owner } : {}),
      ...(query.createdAfter ? { createdAfter: timestampField(query.createdAfter, 'createdAfter') } : {}),
      ...(query.createdBefore ? { createdBefore: timestampField(query.createdBefore, 'createdBefore') } : {}),
      ...(query.tag !== undefined ? { tags: tagFilters(query.tag) } : {}),
      ...(scope ? { scope } : {}),
    };
    // Index rows may not carry tags (the SQL journals match them in the query): the keys read are checked below.
    const rowFilter = filter.tags ? { ...filter, tags: undefined } : filter;
    const from = decodeCursor(query.cursor);
    let after = from;
    const found: IndexedKey[] = [];
    let checked = 0;
    let more = false;
    for (let reads = 1; ; reads++) {
      const want = limit - found.length;
      // One row past what is needed tells whether another page follows.
      const { keys: rows, scannedTo } = await call.trace.child('journal.locate', () =>
        this.journal.locate(filter, after, want + 1),
      );
      let full = false;
      for (let i = 0; i < Math.min(rows.length, want) && !full; i++) {
        const row = rows[i]!;
        checked++;
        after = position(row);
        if (
          (onlyId !== undefined && row.id !== onlyId) ||
          !matchesLocate(row, rowFilter) ||
          !call.permits('Get', row.id, {
            id: row.id,
            name: row.name,
            owner: row.owner,
            ...(row.tenant !== undefined ? { tenant: row.tenant } : {}),
          })
        )
          continue;
        found.push(row);
        full = found.length === limit;
        if (full) more = rows.length > i + 1 || scannedTo !== undefined;
      }
      if (full) break;
      if (rows.length <= want) {
        // The journal read all it reads at once and stopped before the end: go on from where it stopped.
        if (!scannedTo) break;
        after = scannedTo;
      }
      if (reads === LOCATE_READS_PER_CALL) {
        more = true;
        break;
      }
    }
    const read = await Promise.all(found.map((row) => this.store.get(row.id, call.trace)));
    const keys = filter.tags ? read.filter((key) => hasTags(key, filter.tags!)) : read;
    return {
      keys,
      ...(more && after ? { nextCursor: encodeCursor(shownPosition(after, found.at(-1), from)) } : {}),
      checked,
    };
  }
}

/** Most tag filters one Locate takes. */
const MAX_TAG_FILTERS = 50;

/** `tag=k:v` query values as pairs (the value after the first colon; it may hold more colons, or none). */
function tagFilters(tag: string | string[]): Array<[string, string]> {
  const values = Array.isArray(tag) ? tag : [tag];
  if (values.length > MAX_TAG_FILTERS)
    throw new SvcError('InvalidField', `tag: at most ${MAX_TAG_FILTERS} tag filters in one Locate`);
  return values.map((value) => {
    const colon = value.indexOf(':');
    if (colon < 1)
      throw new SvcError('InvalidField', 'tag must be KEY:VALUE (repeat tag= for several, all must match)');
    return [value.slice(0, colon), value.slice(colon + 1)];
  });
}

const hasTags = (key: ManagedKey, tags: Array<[string, string]>) =>
  tags.every(([name, value]) => Object.hasOwn(key.tags, name) && key.tags[name] === value);

const position = (row: IndexedKey): LocatePosition => ({ createdAt: row.createdAt, id: row.id });

/** Above every key id in Locate's order: a position with it stands before every key created at that time. */
const ABOVE_EVERY_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
const isBefore = (a: LocatePosition, b: LocatePosition) =>
  a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id);

/**
 * Where the next page starts, said without naming a key the caller may not see. Reading stopped at
 * `readTo`; when that is not the last key shown, the cursor holds only its time (the next page then
 * reads again the other keys of that millisecond, none of them shown yet), or the last key shown if it
 * has the same time. Only when neither moves past the call's own start (thousands of keys in one
 * millisecond) does the cursor hold the position itself, so that paging always advances.
 */
function shownPosition(
  readTo: LocatePosition,
  lastShown: IndexedKey | undefined,
  from: LocatePosition | undefined,
): LocatePosition {
  if (lastShown && lastShown.id === readTo.id) return readTo;
  if (lastShown && lastShown.createdAt === readTo.createdAt) return position(lastShown);
  const coarse = { createdAt: readTo.createdAt, id: ABOVE_EVERY_ID };
  return !from || isBefore(from, coarse) ? coarse : readTo;
}
