import t from 'tap';
import { matchesLocate, nameGlob } from '../../kernel/index.ts';
import { startTestService } from '../helpers/service.ts';

/**
 * Review of issue 23: a Locate name glob is compiled to a backtracking RegExp (`*` -> `.*`), so a glob
 * with a few stars against a name with a repeated character backtracks exponentially and holds the
 * event loop: one GET /v1/keys from any caller with Locate (an agent will do) stalls the node.
 */
t.test('a name glob matches in time linear in its input (no catastrophic backtracking)', async (t) => {
  const glob = `${'*a'.repeat(8)}*b`; // 18 characters
  const name = 'a'.repeat(40);
  const started = performance.now();
  const matched = nameGlob(glob)(name);
  const ms = performance.now() - started;
  t.equal(matched, false);
  t.ok(ms < 200, `one glob against one 40-character name took ${ms.toFixed(0)} ms`);
  const again = performance.now();
  matchesLocate({ id: '00000000-0000-4000-8000-000000000001', name, algorithm: 'AES', state: 'Active', owner: 'x', createdAt: '2026-01-01T00:00:00.000Z' }, { name: glob });
  t.ok(performance.now() - again < 200, 'matchesLocate (what every journal runs on each row it reads) too');
});

t.test('GET /v1/keys with a hostile 20-character glob answers promptly', async (t) => {
  // The service runs on one event loop: while the glob backtracks, no other request of the node is served.
  const svc = await startTestService({ SVC_JOURNAL_KIND: 'rdb-embedded' });
  t.teardown(() => svc.stop());
  const alice = svc.client('alice');
  // Any key whose name repeats a character will do; an attacker with Create makes one.
  await alice.key({ name: 'a'.repeat(40), algorithm: 'AES' }, false);
  const glob = encodeURIComponent(`${'*a'.repeat(9)}*b`); // each further *a multiplies the time by about 4
  const started = performance.now();
  const res = await alice.get(`/v1/keys?name=${glob}`);
  const ms = performance.now() - started;
  t.equal(res.status, 200);
  t.same(res.body, { keys: [] });
  t.ok(ms < 2000, `the hostile Locate held the event loop for ${ms.toFixed(0)} ms`);
});
