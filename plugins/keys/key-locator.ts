import {
  type IndexedKey,
  type KeyJournal,
  type LocateFilter,
  type LocatePosition,
  type ManagedKey,
  matchesLocate,
  type OperationCall,
  timestampField,
} from '../../kernel/index.ts';
import type { KeyStore } from './key-store.ts';
import { decodeCursor, encodeCursor } from './locate-cursor.ts';

/** Key index rows one Locate call reads at most; past it the caller gets a cursor to go on from there. */
export const LOCATE_ROWS_PER_CALL = 2000;
export const LOCATE_DEFAULT_LIMIT = 100;

export interface LocateQuery {
  name?: string;
  state?: LocateFilter['state'];
  algorithm?: LocateFilter['algorithm'];
  owner?: string;
  createdAfter?: string;
  createdBefore?: string;
  limit?: number;
  cursor?: string;
}

export interface LocatedPage {
  keys: ManagedKey[];
  nextCursor?: string;
  /** Index rows read, for the audit record. */
  read: number;
}

/**
 * Finding keys (Locate): reads the journal's key index newest first, narrowed in the query by the
 * caller's filters and by the keys the policy lets it read (Get), checks every row with the policy
 * once more, and answers each key as GET /v1/keys/{id} shows it. One call reads a bounded number of
 * rows: a page that is not full by then ends with a cursor, so no call scans the whole index.
 */
export class KeyLocator {
  constructor(
    private readonly journal: KeyJournal,
    private readonly store: KeyStore,
  ) {}

  async locate(query: LocateQuery, call: OperationCall): Promise<LocatedPage> {
    const limit = query.limit ?? LOCATE_DEFAULT_LIMIT;
    const scope = call.keyScope('Get');
    const filter: LocateFilter = {
      ...(query.name ? { name: query.name } : {}),
      ...(query.state ? { state: query.state } : {}),
      ...(query.algorithm ? { algorithm: query.algorithm } : {}),
      ...(query.owner ? { owner: query.owner } : {}),
      ...(query.createdAfter ? { createdAfter: timestampField(query.createdAfter, 'createdAfter') } : {}),
      ...(query.createdBefore ? { createdBefore: timestampField(query.createdBefore, 'createdBefore') } : {}),
      ...(scope ? { scope } : {}),
    };
    let after = decodeCursor(query.cursor);
    const found: IndexedKey[] = [];
    let read = 0;
    let more = false;
    reading: for (;;) {
      // One row past what is needed tells whether another page follows.
      const want = Math.min(limit - found.length, LOCATE_ROWS_PER_CALL - read);
      const rows = await call.trace.child('journal.locate', () => this.journal.locate(filter, after, want + 1));
      for (let i = 0; i < Math.min(rows.length, want); i++) {
        const row = rows[i]!;
        read++;
        after = position(row);
        if (matchesLocate(row, filter) && call.permitsOnKey('Get', { id: row.id, name: row.name, owner: row.owner, ...(row.tenant !== undefined ? { tenant: row.tenant } : {}) })) {
          found.push(row);
          if (found.length === limit) {
            more = rows.length > i + 1;
            break reading;
          }
        }
      }
      if (rows.length <= want) break;
      if (read >= LOCATE_ROWS_PER_CALL) {
        more = true;
        break;
      }
    }
    const keys = await Promise.all(found.map((row) => this.store.get(row.id, call.trace)));
    return { keys, ...(more && after ? { nextCursor: encodeCursor(after) } : {}), read };
  }
}

const position = (row: IndexedKey): LocatePosition => ({ createdAt: row.createdAt, id: row.id });
