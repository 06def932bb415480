import t from 'tap';
import { matchesLocate, nameGlob, type IndexedKey } from '../../kernel/index.ts';
import { RoleBasedPolicy } from '../../plugins/policy/role-based/role-policy.ts';

/** The glob as the RegExp it means (`*` any run, everything else literal): the reference for short inputs. */
const reference = (glob: string) =>
  new RegExp(
    `^${glob
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    's',
  );

t.test('a name glob: * matches any run of characters, everything else is literal and case-sensitive', async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ['payments-*', 'payments-eu', true],
    ['payments-*', 'payments-', true],
    ['payments-*', 'Payments-eu', false],
    ['*-prod', 'db-prod', true],
    ['*-prod', 'db-prod-2', false],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'a-c-b-c', true],
    ['a*b*c', 'acb', false],
    ['ab*ba', 'aba', false],
    ['ab*ba', 'abba', true],
    ['*', '', true],
    ['**', 'x', true],
    ['a**', 'a', true],
    ['*a*', 'bab', true],
    ['.*', '.yz', true],
    ['.*', 'xyz', false],
    ['a?c', 'abc', false],
    ['a?c', 'a?c', true],
    ['%_*', '%_x', true],
    ['[a]*', 'a', false],
    ['x*\\', 'xy\\', true],
    ['*\n*', 'a\nb', true],
    ['exact', 'exact', true],
    ['exact', 'exac', false],
  ];
  for (const [glob, name, expected] of cases)
    t.equal(nameGlob(glob)(name), expected, `${JSON.stringify(glob)} on ${JSON.stringify(name)}`);
});

t.test('it means what the RegExp it replaced meant, over every short glob and name of a small alphabet', async (t) => {
  const words = (alphabet: string, max: number): string[] => {
    const out = [''];
    for (let i = 0; out[i]!.length < max; i++) for (const c of alphabet) out.push(out[i]! + c);
    return out;
  };
  const names = words('ab', 5);
  const differences: string[] = [];
  for (const glob of words('ab*', 4)) {
    const mine = nameGlob(glob);
    const theirs = reference(glob);
    for (const name of names) if (mine(name) !== theirs.test(name)) differences.push(`${glob} on ${name}`);
  }
  t.same(differences, []);
});

// Before, each * was a .* of a backtracking RegExp: this glob against this name took longer than a test
// runs (each further *a multiplies the time by about 4), holding the event loop all along.
const HOSTILE_GLOB = `${'*a'.repeat(30)}*b`;
const LONG_NAME = 'a'.repeat(256);

t.test('a glob with many stars against a name that repeats a character is answered', async (t) => {
  t.equal(nameGlob(HOSTILE_GLOB)(LONG_NAME), false);
  t.equal(nameGlob(HOSTILE_GLOB)(`${LONG_NAME}b`), true);
  const key: IndexedKey = {
    id: '00000000-0000-4000-8000-000000000001',
    name: LONG_NAME,
    algorithm: 'AES',
    state: 'Active',
    owner: 'x',
    createdAt: '2026-01-01T00:00:00.000Z',
  };
  t.equal(matchesLocate(key, { name: HOSTILE_GLOB }), false, "as Locate's name filter");
  t.equal(
    matchesLocate(key, { scope: { owners: [], tenants: [], ids: [], names: [HOSTILE_GLOB] } }),
    false,
    'as a name in a key scope',
  );
});

t.test("the role-based policy's name: patterns use the same matcher: the names are callers'", async (t) => {
  const policy = new RoleBasedPolicy(
    { readers: { operations: ['Get'], keys: [`name:${HOSTILE_GLOB}`, 'name:team-*'] } },
    {},
  );
  const reader = { kind: 'Human' as const, subject: 'dave', groups: ['readers'] };
  const on = (name: string) =>
    policy.authorize(reader, 'Get', 'k', { id: '00000000-0000-4000-8000-000000000001', name, owner: 'x' }).allowed;
  t.equal(on(LONG_NAME), false);
  t.equal(on(`${LONG_NAME}b`), true);
  t.equal(on('team-eu'), true);
  t.equal(on('Team-eu'), false);
});
