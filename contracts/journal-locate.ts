import { randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import type { IndexedKey, KeyEvent, KeyJournal, KeySpec, LocateFilter, LocatePosition } from '../kernel/index.ts';

const created = (
  name: string,
  at: string,
  owner: string,
  algorithm: KeySpec['algorithm'] = 'AES',
  tenant?: string,
): KeyEvent => ({
  type: 'KeyCreated',
  at,
  by: owner,
  owner,
  materialId: randomUUID(),
  ...(tenant ? { tenant } : {}),
  spec: {
    name,
    algorithm,
    sizeBits: 256,
    objectType: algorithm === 'AES' || algorithm === 'HMAC' ? 'SymmetricKey' : 'PrivateKey',
    exportable: false,
  },
});

/** Up to `limit` matches from `after`, going on from each `scannedTo` as Locate does; checks what each read answers. */
async function locateAll(
  t: Test,
  j: KeyJournal,
  filter: LocateFilter,
  after: LocatePosition | undefined,
  limit: number,
): Promise<IndexedKey[]> {
  const keys: IndexedKey[] = [];
  for (let from = after, reads = 0; reads < 10000; reads++) {
    const read = await j.locate(filter, from, limit - keys.length);
    if (read.keys.length > limit - keys.length) t.fail('a read answers at most limit keys');
    if (read.scannedTo && read.keys.length === limit - keys.length) t.fail('scannedTo only with fewer than limit keys');
    keys.push(...read.keys);
    if (keys.length >= limit || !read.scannedTo) return keys;
    from = read.scannedTo;
  }
  throw new Error('locate never reached the end');
}

/**
 * The key index behind Locate: kept with every append (in its transaction), filtered, ordered newest
 * first by (createdAt, id), and paged from a position. Every name used here starts with a prefix of its
 * own, so the suite runs beside keys other tests left in the same storage.
 */
export function locateContract(t: Test, open: () => Promise<KeyJournal>, reopen?: () => Promise<KeyJournal>): void {
  t.test('locate: filters, newest-first order, seek paging, state kept with appends', async (t) => {
    const j = await open();
    const p = `loc-${randomUUID().slice(0, 8)}`;
    const ids: string[] = [];
    // Ten keys a second apart, two of them (the 6th and 7th) created in the same millisecond: ties order by id.
    for (let i = 0; i < 10; i++) {
      const id = randomUUID();
      ids.push(id);
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i === 6 ? 5 : i)).toISOString();
      const owner = i % 2 === 0 ? 'alice' : 'bob';
      await j.append(id, 0, [
        created(
          `${p}-${i % 3 === 0 ? 'pay' : 'log'}-${i}`,
          at,
          owner,
          i === 9 ? 'HMAC' : 'AES',
          i === 3 ? 'acme' : undefined,
        ),
      ]);
    }
    await j.append(ids[1]!, 1, [{ type: 'KeyActivated', at: '2026-01-02T00:00:00.000Z', by: 'bob' }]);
    await j.append(ids[2]!, 1, [
      { type: 'KeyActivated', at: '2026-01-02T00:00:00.000Z', by: 'alice' },
      {
        type: 'Rotated',
        at: '2026-01-02T00:00:00.000Z',
        by: 'alice',
        newVersion: 2,
        materialId: 'm2',
        policy: 'Manual',
      },
    ]);
    await j.append(ids[4]!, 1, [
      { type: 'Compromised', at: '2026-01-02T00:00:00.000Z', by: 'alice', reason: 'x' },
      { type: 'Destroyed', at: '2026-01-02T00:00:00.000Z', by: 'alice' },
    ]);
    await t.rejects(
      j.append(ids[5]!, 0, [created('never', '2026-01-03T00:00:00.000Z', 'mallory')]),
      'a refused append',
    );

    const mine = (filter: Omit<LocateFilter, 'name'> & { name?: string } = {}) =>
      locateAll(t, j, { name: `${p}-*`, ...filter }, undefined, 100);
    const order = [...ids.keys()]
      .sort((a, b) => {
        const at = (i: number) => (i === 6 ? 5 : i);
        return at(b) - at(a) || (ids[b]! < ids[a]! ? -1 : 1);
      })
      .map((i) => ids[i]);
    t.same(
      (await mine()).map((k) => k.id),
      order,
      'newest first, ties by id descending',
    );
    const first = (await mine()).find((k) => k.id === ids[3]);
    t.same(
      first,
      {
        id: ids[3],
        name: `${p}-pay-3`,
        algorithm: 'AES',
        state: 'PreActive',
        owner: 'bob',
        tenant: 'acme',
        createdAt: '2026-01-01T00:00:03.000Z',
      },
      'a row holds the key as created',
    );
    t.same(
      (await mine({ state: 'Active' })).map((k) => k.id).sort(),
      [ids[1], ids[2]].sort(),
      'state follows appended changes',
    );
    t.same(
      (await mine({ state: 'Destroyed' })).map((k) => k.id),
      [ids[4]],
      'several changes in one append leave the last state',
    );
    t.same(
      (await mine({ algorithm: 'HMAC' })).map((k) => k.id),
      [ids[9]],
    );
    t.same((await mine({ owner: 'bob' })).map((k) => k.id).sort(), [ids[1], ids[3], ids[5], ids[7], ids[9]].sort());
    t.same(await mine({ owner: 'Bob' }), [], 'owner is exact');
    t.same(
      (await locateAll(t, j, { name: `${p}-pay-*` }, undefined, 100)).map((k) => k.id).sort(),
      [ids[0], ids[3], ids[6], ids[9]].sort(),
      'a glob',
    );
    t.same(await locateAll(t, j, { name: `${p}-PAY-*` }, undefined, 100), [], 'names are case-sensitive');
    t.same(
      (await locateAll(t, j, { name: `${p}-pay-3` }, undefined, 100)).map((k) => k.id),
      [ids[3]],
      'an exact name',
    );
    t.same(await locateAll(t, j, { name: `${p}-pay-` }, undefined, 100), [], 'an exact name is not a prefix');
    t.same(await locateAll(t, j, { name: `${p}_pay_3` }, undefined, 100), [], '_ is no wildcard');
    t.same(await locateAll(t, j, { name: `${p}%` }, undefined, 100), [], '% is no wildcard');
    t.same(await locateAll(t, j, { name: `${p}-?og-1` }, undefined, 100), [], '? is no wildcard');
    t.same(
      (await mine({ createdAfter: '2026-01-01T00:00:07.000Z' })).map((k) => k.id),
      [ids[9], ids[8]],
      'createdAfter is exclusive',
    );
    t.same(
      (await mine({ createdBefore: '2026-01-01T00:00:02.000Z' })).map((k) => k.id),
      [ids[1], ids[0]],
      'createdBefore is exclusive',
    );
    t.same(
      (await mine({ scope: { owners: ['alice'], tenants: [], names: [], ids: [] } })).map((k) => k.id).sort(),
      [ids[0], ids[2], ids[4], ids[6], ids[8]].sort(),
      'scope by owner',
    );
    t.same(
      (await mine({ scope: { owners: [], tenants: ['acme'], names: [`${p}-log-1`], ids: [ids[8]!] } })).map(
        (k) => k.id,
      ),
      [ids[8], ids[3], ids[1]],
      'scope: any of tenant, name, id',
    );
    t.same(await mine({ scope: { owners: [], tenants: [], names: [], ids: [] } }), [], 'an empty scope finds nothing');
    t.same((await mine({ scope: 'every' })).length, 10);

    // Paging: each page seeks after the last row of the previous one; none is repeated or skipped.
    const paged: string[] = [];
    for (let after: { createdAt: string; id: string } | undefined, n = 0; n < 10; n++) {
      const page = await locateAll(t, j, { name: `${p}-*` }, after, 3);
      paged.push(...page.map((k) => k.id));
      if (page.length < 3) break;
      after = { createdAt: page[2]!.createdAt, id: page[2]!.id };
    }
    t.same(paged, order, 'pages of three cover every key once, in order, across the tie');
    t.same(await locateAll(t, j, { name: `${p}-*` }, undefined, 0), [], 'limit 0 reads nothing');

    const again = reopen ? (await j.stop?.(), await reopen()) : j;
    t.same(
      (await locateAll(t, again, { name: `${p}-*`, state: 'Active' }, undefined, 100)).map((k) => k.id).sort(),
      [ids[1], ids[2]].sort(),
      'the index is durable',
    );
    await again.stop?.();
  });

  t.test('locate: tags set at creation and by TagsChanged, every tag filter must match exactly', async (t) => {
    const j = await open();
    const team = `team-${randomUUID().slice(0, 8)}`;
    const tagged = (name: string, tags: Record<string, string>): KeyEvent => {
      const event = created(name, '2026-03-01T00:00:00.000Z', 'tagger') as Extract<KeyEvent, { type: 'KeyCreated' }>;
      return { ...event, spec: { ...event.spec, tags } };
    };
    const [prod, dev, other] = [randomUUID(), randomUUID(), randomUUID()];
    await j.append(prod, 0, [tagged(`${team}-prod`, { team, env: 'prod' })]);
    await j.append(dev, 0, [tagged(`${team}-dev`, { team, env: 'dev' })]);
    await j.append(other, 0, [tagged(`${team}-other`, { team: `${team}x`, Env: 'prod' })]);
    const ids = async (tags: Array<[string, string]>) =>
      (await locateAll(t, j, { tags }, undefined, 100)).map((k) => k.id).sort();
    t.same(await ids([['team', team]]), [prod, dev].sort(), 'one tag');
    t.same(
      await ids([
        ['team', team],
        ['env', 'prod'],
      ]),
      [prod],
      'two tags: both must match',
    );
    t.same(await ids([['env', 'PROD']]), [], 'values compare exactly (case included)');
    await j.append(dev, 1, [
      { type: 'TagsChanged', at: '2026-03-02T00:00:00.000Z', by: 'tagger', set: { env: 'prod' } },
    ]);
    t.same(
      await ids([
        ['team', team],
        ['env', 'prod'],
      ]),
      [prod, dev].sort(),
      'a changed value is found by its new value',
    );
    await j.append(prod, 1, [{ type: 'TagsChanged', at: '2026-03-02T00:00:00.000Z', by: 'tagger', removed: ['env'] }]);
    t.same(
      await ids([
        ['team', team],
        ['env', 'prod'],
      ]),
      [dev],
      'a removed tag no longer matches',
    );
    t.same(await ids([['team', team]]), [prod, dev].sort(), 'and the other tags stay');
    await j.stop?.();
  });
}
