import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const MINE = ['Create', 'Get', 'Activate', 'Locate', 'Revoke', 'Compromise'];
const POLICY = {
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify({
    team: { operations: MINE, keys: ['owner:self'] },
    readers: { operations: ['Get', 'Locate'], keys: ['name:public-*'] },
    // public-* names are claimed: creating one needs a Create grant naming the pattern.
    publishers: { operations: ['Create'], keys: ['name:public-*'] },
    blind: { operations: ['Locate'], keys: ['owner:self'] },
    admins: [...MINE, 'Query'],
  }),
};

const ids = (page: { keys: Array<{ id: string }> }) => page.keys.map((k) => k.id);

/** Every page of GET /v1/keys with `query`, following nextCursor. */
async function allPages(client: ApiClient, query: string): Promise<{ keys: any[]; pages: number }> {
  const keys: any[] = [];
  let pages = 0;
  for (let cursor: string | undefined; ; ) {
    const page = await client.get(`/v1/keys?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (page.status !== 200) throw new Error(`locate failed: ${page.status} ${JSON.stringify(page.body)}`);
    keys.push(...page.body.keys);
    pages++;
    if (!page.body.nextCursor) return { keys, pages };
    cursor = page.body.nextCursor;
  }
}

async function locate(t: Test, env: Record<string, string>): Promise<void> {
  const svc = await startTestService({ ...POLICY, ...env });
  t.teardown(() => svc.stop());
  const as = async (claims: Record<string, unknown>) =>
    new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken(claims)}` });
  const admin = await as({ sub: 'ops', svc_groups: ['admins'] });
  const bob = await as({ sub: 'bob', svc_groups: ['team'] });
  const carol = await as({ sub: 'carol', svc_groups: ['team', 'publishers'] });
  const dave = await as({ sub: 'dave', svc_groups: ['readers'] });
  const run = randomUUID().slice(0, 8);

  // Bob: five keys (two activated, one HMAC); carol: three, one of them public-*.
  const bobs: string[] = [];
  for (let i = 0; i < 5; i++)
    bobs.push(await bob.key({ name: `${run}-bob-${i}`, algorithm: i === 4 ? 'HMAC' : 'AES' }, i < 2));
  const carols: string[] = [];
  for (let i = 0; i < 2; i++) carols.push(await carol.key({ name: `${run}-carol-${i}`, algorithm: 'AES' }, false));
  carols.push(await carol.key({ name: `public-${run}`, algorithm: 'AES' }, false));
  const newestFirst = [...bobs, ...carols].reverse();

  await t.test('filters, newest first, each key as GET shows it', async (t) => {
    const all = await admin.get(`/v1/keys?name=${run}-*`);
    t.equal(all.status, 200);
    t.same(
      ids(all.body),
      newestFirst.filter((id) => id !== carols[2]),
      'a name glob, newest first',
    );
    t.notOk(all.body.nextCursor, 'one page holds them all: no cursor');
    t.same(
      all.body.keys[0],
      (await admin.get(`/v1/keys/${all.body.keys[0].id}`)).body,
      'a key found is the key GET /v1/keys/{id} shows',
    );
    t.same(ids((await admin.get(`/v1/keys?name=${run}-bob-3`)).body), [bobs[3]], 'an exact name');
    t.same(ids((await admin.get(`/v1/keys?name=${run}-*&state=Active`)).body), [bobs[1], bobs[0]], 'state');
    t.same(ids((await admin.get(`/v1/keys?name=${run}-*&algorithm=HMAC`)).body), [bobs[4]], 'algorithm');
    t.same(ids((await admin.get(`/v1/keys?name=${run}-*&owner=carol`)).body), [carols[1], carols[0]], 'owner');
    const every = (await admin.get(`/v1/keys?name=${run}-*`)).body.keys as Array<{ id: string; createdAt: string }>;
    const third = every.find((k) => k.id === bobs[2])!.createdAt;
    const after = (await admin.get(`/v1/keys?name=${run}-*&createdAfter=${encodeURIComponent(third)}`)).body;
    t.same(
      ids(after),
      every.filter((k) => k.createdAt > third).map((k) => k.id),
      'createdAfter is exclusive',
    );
    t.notOk(ids(after).includes(bobs[2]!));
    const before = (await admin.get(`/v1/keys?name=${run}-*&createdBefore=${encodeURIComponent(third)}`)).body;
    t.same(
      ids(before),
      every.filter((k) => k.createdAt < third).map((k) => k.id),
      'createdBefore is exclusive',
    );
    t.same(
      ids(
        (await admin.get(`/v1/keys?name=${run}-*&createdAfter=${encodeURIComponent(third.replace('Z', '+00:00'))}`))
          .body,
      ),
      ids(after),
      'an offset is read as such',
    );
    t.same(
      ids((await admin.get(`/v1/keys?name=${run}-*&createdAfter=2999-01-01`)).body),
      [],
      'a plain date reads as midnight UTC',
    );
  });

  await t.test('paging over several pages: every key once, in order', async (t) => {
    const paged = await allPages(admin, `name=${run}-*&limit=2`);
    t.equal(paged.pages, 4, 'seven keys in pages of two');
    t.same(
      paged.keys.map((k) => k.id),
      newestFirst.filter((id) => id !== carols[2]),
    );
  });

  await t.test('a scoped Human sees only its own keys and learns nothing of the others', async (t) => {
    const mine = await allPages(bob, 'limit=1');
    t.ok(mine.keys.length >= 5 && mine.keys.every((k) => k.owner === 'bob'), "no filter: only bob's keys");
    t.same(
      mine.keys.filter((k) => k.spec.name.startsWith(run)).map((k) => k.id),
      [...bobs].reverse(),
    );
    const probe = await bob.get(`/v1/keys?name=${run}-carol-*&limit=1`);
    const nothing = await bob.get(`/v1/keys?name=${run}-nobody-*&limit=1`);
    t.same(probe.body, { keys: [] }, "a glob naming carol's keys: no key, no cursor");
    t.same(probe.body, nothing.body, 'the same answer as for names nobody has');
    t.same((await bob.get(`/v1/keys?name=${run}-carol-0`)).body, { keys: [] }, 'an exact foreign name: nothing');
    t.same((await bob.get('/v1/keys?owner=carol&limit=1')).body, { keys: [] }, 'owner=carol: nothing');
    const readers = await allPages(dave, 'limit=1000');
    t.ok(
      readers.keys.length >= 1 && readers.keys.every((k) => k.spec.name.startsWith('public-')),
      'name:public-* readers see public-* keys only',
    );
    t.ok(readers.keys.some((k) => k.id === carols[2]));
    const blind = await as({ sub: 'erin', svc_groups: ['blind'] });
    t.same((await blind.get('/v1/keys')).body, { keys: [] }, 'Locate without Get: nothing to see');
    t.equal((await (await as({ sub: 'frank', svc_groups: [] })).get('/v1/keys')).status, 403, 'no Locate at all: 403');
  });

  await t.test('an agent sees only keys its parent may read, and only with Get in its own scopes', async (t) => {
    const issued = await bob.post('/v1/agents/issue', { label: 'finder', scopes: ['Locate', 'Get'], ttlSeconds: 600 });
    t.equal(issued.status, 200);
    const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
    const seen = await allPages(agent, 'limit=1000');
    t.ok(seen.keys.length >= 5 && seen.keys.every((k) => k.owner === 'bob'), "the agent sees its parent's keys");
    t.same((await agent.get(`/v1/keys?name=${run}-carol-*`)).body, { keys: [] }, 'and nothing of anyone else');
    const noGet = await bob.post('/v1/agents/issue', { label: 'locate-only', scopes: ['Locate'], ttlSeconds: 600 });
    t.same(
      (await new ApiClient(svc.url, { Authorization: `Bearer ${noGet.body.jwt}` }).get('/v1/keys')).body,
      { keys: [] },
      'an agent without Get finds nothing',
    );
    const noLocate = await bob.post('/v1/agents/issue', { label: 'get-only', scopes: ['Get'], ttlSeconds: 600 });
    t.equal(
      (await new ApiClient(svc.url, { Authorization: `Bearer ${noLocate.body.jwt}` }).get('/v1/keys')).status,
      403,
      'an agent without Locate is refused',
    );
  });

  await t.test('bad input is 400 InvalidField and finds nothing', async (t) => {
    const forged = Buffer.from('1|2026-01-01T00:00:00.000Z|not-a-key').toString('base64url');
    const valid = (await admin.get(`/v1/keys?name=${run}-*&limit=1`)).body.nextCursor as string;
    const tampered = `${valid.slice(0, -2)}${valid.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const query of [
      'limit=0',
      'limit=1001',
      'limit=many',
      'cursor=%25%25',
      `cursor=${forged}`,
      `cursor=${tampered}`,
      `cursor=${valid}=`,
      'createdAfter=%2010',
      'createdBefore=2026-02-30',
      'state=Gone',
      'algorithm=DES',
      'name=',
      `name=${'n'.repeat(257)}`,
    ]) {
      const res = await admin.get(`/v1/keys?${query}`);
      t.equal(res.status, 400, query);
      t.equal(res.body.error, 'InvalidField', query);
    }
    // A misspelt filter would otherwise widen the answer; a repeated one is ambiguous.
    for (const query of ['stat=Active', 'limit=1&limit=2', 'name=a&name=b']) {
      const res = await admin.get(`/v1/keys?${query}`);
      t.equal(res.status, 400, query);
      t.equal(res.body.error, 'BadRequest', query);
    }
  });

  await t.test('one audit record per call, resource pattern:<the query>', async (t) => {
    await admin.get(`/v1/keys?state=Active&name=${run}-*&limit=2`);
    const rows = (await admin.get('/v1/audit?op=Locate&actor=ops&limit=1')).body.records;
    t.match(rows[0], {
      operation: 'Locate',
      outcome: 'Success',
      resource: `pattern:name=${run}-*&state=Active`,
      context: { found: '2' },
    });
    const before = (await admin.get('/v1/audit?op=Locate&actor=bob&limit=1000')).body.records.length;
    await allPages(bob, 'limit=2');
    const after = (await admin.get('/v1/audit?op=Locate&actor=bob&limit=1000')).body.records.length;
    t.equal(after - before, 3, 'one record per page read, none per key shown');
    await admin.get('/v1/keys?limit=1');
    t.equal(
      (await admin.get('/v1/audit?op=Locate&actor=ops&limit=1')).body.records[0].resource,
      'pattern:*',
      'no filter: pattern:*',
    );
    await admin.get('/v1/keys?limit=0');
    t.match(
      (await admin.get('/v1/audit?op=Locate&actor=ops&limit=1')).body.records[0],
      { resource: 'pattern:*', outcome: 'InvalidField' },
      'a refused call has its record too',
    );
  });

  await t.test(
    'a glob of many stars against a name that repeats a character is answered (no backtracking)',
    async (t) => {
      // A backtracking matcher took longer than this test may run on it, holding the node's event loop.
      const long = await bob.key({ name: 'a'.repeat(256), algorithm: 'AES' }, false);
      const stars = `${'*a'.repeat(30)}*`;
      t.same((await bob.get(`/v1/keys?name=${encodeURIComponent(`${stars}b`)}`)).body, { keys: [] }, 'matching no key');
      t.same(ids((await bob.get(`/v1/keys?name=${encodeURIComponent(stars)}`)).body), [long], 'matching one');
      t.same(
        (await dave.get(`/v1/keys?name=${encodeURIComponent(`${stars}b`)}`)).body,
        { keys: [] },
        'for a caller whose scope is a name glob too',
      );
    },
  );
}

t.test('finding keys on SQLite', (t) => locate(t, { SVC_JOURNAL_KIND: 'rdb-embedded' }));
t.test('finding keys on PostgreSQL', async (t) => {
  const db = await freshDatabase(t, 'postgresql');
  if (db) await locate(t, db.env);
});
t.test('finding keys on MySQL/MariaDB', async (t) => {
  const db = await freshDatabase(t, 'mysql');
  if (db) await locate(t, db.env);
});
