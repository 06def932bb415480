import t from 'tap';
import type {
  IndexedKey,
  KeyJournal,
  KeyScope,
  LocatedRows,
  LocateFilter,
  LocatePosition,
  ManagedKey,
  OperationCall,
  ResourceFacts,
} from '../../kernel/index.ts';
import { UNTRACED } from '../../kernel/index.ts';
import { KeyLocator, LOCATE_READS_PER_CALL } from '../../plugins/keys/key-locator.ts';
import type { KeyStore } from '../../plugins/keys/key-store.ts';
import { decodeCursor } from '../../plugins/keys/locate-cursor.ts';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const rows: IndexedKey[] = Array.from({ length: 40 }, (_, n) => ({
  id: uuid(40 - n),
  name: `k-${40 - n}`,
  algorithm: 'AES',
  state: 'Active',
  owner: (40 - n) % 2 ? 'bob' : 'carol',
  createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 40 - n)).toISOString(),
}));

/** A journal that reads windows of `window` rows and says where it stopped, as the SQL journals do for a glob. */
function windowed(window: number): KeyJournal & { reads: number } {
  const journal = {
    reads: 0,
    async locate(filter: LocateFilter, after: LocatePosition | undefined, limit: number): Promise<LocatedRows> {
      journal.reads++;
      const from = after
        ? rows.findIndex((r) => r.createdAt < after.createdAt || (r.createdAt === after.createdAt && r.id < after.id))
        : 0;
      const slice = from < 0 ? [] : rows.slice(from, from + window);
      const keys = slice.filter((r) => filter.owner === undefined || r.owner === filter.owner).slice(0, limit);
      const stopped = keys.length < limit && slice.length === window ? slice.at(-1) : undefined;
      return { keys, ...(stopped ? { scannedTo: { createdAt: stopped.createdAt, id: stopped.id } } : {}) };
    },
  };
  return journal as unknown as KeyJournal & { reads: number };
}
const store = { get: async (id: string) => ({ id }) as unknown as ManagedKey } as unknown as KeyStore;
const caller = (mayRead: (facts: ResourceFacts) => boolean): OperationCall => ({
  principal: { kind: 'Human', subject: 'x', groups: [] },
  requestId: 'r',
  trace: UNTRACED,
  successRecord: () => {
    throw new Error('no state change');
  },
  journaled: () => {},
  permits: (_op, _resource, facts) => mayRead(facts!),
  keyScope: (): KeyScope => 'every',
});

t.test(
  "a page is filled across the journal's windows; reads per call are bounded and the cursor goes on",
  async (t) => {
    const journal = windowed(4);
    const locator = new KeyLocator(journal, store);
    const page = await locator.locate(
      { owner: 'bob', limit: 3 },
      caller(() => true),
    );
    t.same(
      page.keys.map((k) => k.id),
      [uuid(39), uuid(37), uuid(35)],
      'the first page, from two windows',
    );
    t.ok(page.nextCursor);
    const sparse = windowed(4);
    const few = await new KeyLocator(sparse, store).locate(
      { owner: 'bob', limit: 100 },
      caller((f) => f.id === uuid(1) || f.id === uuid(39)),
    );
    t.equal(sparse.reads, LOCATE_READS_PER_CALL, 'a call stops after its reads');
    t.same(
      few.keys.map((k) => k.id),
      [uuid(39)],
    );
    t.ok(few.nextCursor, 'and answers a cursor');
    t.same(
      decodeCursor(few.nextCursor),
      { createdAt: rows[11]!.createdAt, id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' },
      'where the last window stopped, by its time only: the key read last is ' +
        'one the caller may not see, and the cursor does not name it',
    );
    const rest: string[] = [];
    for (let cursor = few.nextCursor; cursor; ) {
      const next = await new KeyLocator(windowed(4), store).locate(
        { owner: 'bob', limit: 100, cursor },
        caller((f) => f.id === uuid(1) || f.id === uuid(39)),
      );
      rest.push(...next.keys.map((k) => k.id));
      cursor = next.nextCursor;
    }
    t.same(rest, [uuid(1)], 'following the cursors finds the rest, once');
  },
);
