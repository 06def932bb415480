import t from 'tap';
import { ownersService } from '../helpers/alias-owners.ts';

// GET /v1/aliases lists only aliases of keys the caller may read, and reads on past the others until its
// page is full or the aliases end. Otherwise another owner's aliases that sort first fill the page, the
// caller is told it has none, and anyone can hide an alias from its owner's listing by creating enough
// aliases of their own. Its `nextAfter` is the last alias it shows, so paging never hands the caller the
// name of an alias it may not see. Here mallory's 100 aliases sort before alice's alias/payroll-prod.
const { svc, alice, mallory, mallorysKey } = await ownersService();
t.teardown(() => svc.stop());
for (let i = 0; i < 100; i++) {
  const r = await mallory.call('PUT', `/v1/aliases/alias%2Faaa-${String(i).padStart(3, '0')}`, {
    keyId: mallorysKey,
  });
  if (r.status !== 200) throw new Error(`alias ${i}: ${r.status}`);
}

t.test("another owner's aliases do not hide one's own from GET /v1/aliases", async (t) => {
  const listed = await alice.get('/v1/aliases');
  t.equal(listed.status, 200);
  const names = listed.body.aliases.map((a: any) => a.name);
  t.same(names, ['alias/payroll-prod'], "alice's own alias is listed, and none of mallory's");
  t.equal(listed.body.nextAfter, undefined, 'and nothing more is said');
});

t.test("paging with nextAfter reaches one's own alias past another owner's", async (t) => {
  const seen: string[] = [];
  let after: string | undefined;
  let pages = 0;
  for (; pages < 100; pages++) {
    const page = await alice.get(
      `/v1/aliases?limit=5${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`,
    );
    t.equal(page.status, 200, `page ${pages + 1} is answered`);
    for (const alias of page.body.aliases) seen.push(alias.name);
    if (page.body.nextAfter === undefined) break;
    t.not(page.body.nextAfter, after, 'each nextAfter moves on');
    t.ok(seen.includes(page.body.nextAfter), 'a nextAfter is an alias the page showed, never a hidden one');
    after = page.body.nextAfter;
  }
  t.same(seen, ['alias/payroll-prod'], "alice's pages hold her alias, and none of mallory's");
  const theirs = await mallory.get('/v1/aliases?limit=30');
  t.equal(theirs.body.aliases.length, 30, "mallory's own listing pages by 30");
  t.equal(theirs.body.nextAfter, 'alias/aaa-029', 'ending at the last alias it showed');
  const next = await mallory.get(`/v1/aliases?limit=30&after=${encodeURIComponent(theirs.body.nextAfter)}`);
  t.equal(next.body.aliases[0].name, 'alias/aaa-030', 'and the next page starts right after it');
});
