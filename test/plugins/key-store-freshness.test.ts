import t from 'tap';
import type { KeyEvent, KeyJournal, StoredEvent } from '../../kernel/index.ts';
import { MemoryJournal } from '../../plugins/journal/memory/memory-journal.ts';
import { KeyStore } from '../../plugins/keys/key-store.ts';
import type { KeyWrapping } from '../../plugins/keys/key-wrapping.ts';

const at = '2026-01-01T00:00:00.000Z';
const id = '00000000-0000-4000-8000-00000000f7e5';
const created: KeyEvent = {
  type: 'KeyCreated',
  at,
  spec: { name: 'fresh', algorithm: 'AES', sizeBits: 256, objectType: 'SymmetricKey', exportable: false },
  by: 'alice',
  materialId: 'm1',
};

/**
 * A journal shared with other nodes whose change stamp stays put (no commit after the moment it is read) and whose
 * next load can be held: it reads the events at once and answers only when released, as a slow query would.
 */
function sharedJournal(inner: MemoryJournal) {
  let hold: Promise<void> | undefined;
  const journal = Object.create(inner) as KeyJournal & { shared: boolean };
  Object.assign(journal, {
    shared: true,
    changeStamp: () => 7,
    lastSeq: (keyId: string) => inner.lastSeq(keyId),
    load: async (keyId: string): Promise<StoredEvent[]> => {
      const events = await inner.load(keyId);
      const held = hold;
      hold = undefined;
      if (held) await held;
      return events;
    },
  });
  return {
    journal,
    holdNextLoad(): () => void {
      let release!: () => void;
      hold = new Promise((resolve) => (release = resolve));
      return release;
    },
  };
}

t.test('a load that began before a compromise and ended after a newer state was confirmed never wins', async (t) => {
  const inner = new MemoryJournal();
  await inner.append(id, 0, [created, { type: 'KeyActivated', at, by: 'alice' }]);
  const { journal, holdNextLoad } = sharedJournal(inner);
  const store = new KeyStore(journal, { forget() {} } as unknown as KeyWrapping, { ttlSeconds: 60, maxEntries: 10 });

  const release = holdNextLoad();
  const slow = store.get(id); // reads the key while Active, answers late
  await inner.append(id, 2, [{ type: 'Compromised', at, by: 'ops', reason: 'stolen' }]);
  t.equal((await store.get(id)).state, 'Compromised', 'a later load caches the compromise');
  t.equal((await store.get(id)).state, 'Compromised', 'and a use confirms it at the current stamp');
  release();
  t.equal((await slow).state, 'Compromised', 'the slow load answers with the newer state it finds cached');
  t.equal((await store.get(id)).state, 'Compromised', 'and the next use still sees the compromise');
});

t.test('a key loaded in any state but Active leaves no parsed material behind, cached before or not', async (t) => {
  const inner = new MemoryJournal();
  await inner.append(id, 0, [
    created,
    { type: 'KeyActivated', at, by: 'alice' },
    { type: 'Compromised', at, by: 'ops', reason: 'stolen' },
  ]);
  const forgotten: string[] = [];
  const store = new KeyStore(
    sharedJournal(inner).journal,
    { forget: (keyId: string) => forgotten.push(keyId) } as unknown as KeyWrapping,
    { ttlSeconds: 60, maxEntries: 10 },
  );
  // As after a lost append race: the cache entry is gone, material parsed before it may not be.
  t.equal((await store.get(id)).state, 'Compromised');
  t.same(forgotten, [id], "the key's unwrapped material and KWK are dropped on that load");
});
