import t from 'tap';
import { ActorTable } from '../../kernel/detection/actor-table.ts';
import { ActorStateBudget } from '../../kernel/detection/state-budget.ts';

t.test('state is per kind and subject, bounded per kind, least recently seen dropped first', async (t) => {
  const table = new ActorTable<string>(new ActorStateBudget(1 << 20), 2, (v) => 2 * v.length);
  table.set({ kind: 'Human', subject: 'x' }, 'human x');
  table.set({ kind: 'Service', subject: 'x' }, 'service x');
  t.equal(table.get({ kind: 'Human', subject: 'x' }), 'human x');
  t.equal(table.get({ kind: 'Service', subject: 'x' }), 'service x', 'a service named like a human has its own state');
  t.equal(table.get({ kind: 'Agent', subject: 'x' }), undefined);

  table.set({ kind: 'Human', subject: 'y' }, 'human y');
  t.equal(table.get({ kind: 'Human', subject: 'x' }), 'human x', 'x is now the most recently seen human');
  table.set({ kind: 'Human', subject: 'z' }, 'human z');
  t.equal(table.peek({ kind: 'Human', subject: 'y' }), undefined, 'y, least recently seen, made room for z');
  t.equal(table.peek({ kind: 'Service', subject: 'x' }), 'service x', 'other kinds keep their own bound');

  t.equal(table.peek({ kind: 'Human', subject: 'x' }), 'human x');
  table.set({ kind: 'Human', subject: 'w' }, 'human w');
  t.equal(table.peek({ kind: 'Human', subject: 'x' }), undefined, 'peek does not count as a sighting');
});

t.test('one byte budget over every table: attacker-sized subjects evict, the total stays bounded', async (t) => {
  const budget = new ActorStateBudget(200_000);
  const a = new ActorTable<number[]>(budget, 10_000, () => 64);
  const b = new ActorTable<number[]>(budget, 10_000, () => 64);
  b.set({ kind: 'Human', subject: 'steady' }, [1]);
  let most = 0;
  for (let i = 0; i < 1000; i++) {
    a.set({ kind: 'Agent', subject: `${i}-${'x'.repeat(8192)}` }, [i]);
    most = Math.max(most, budget.used);
  }
  t.ok(most <= budget.maxBytes, `never above the budget (at most ${most} of ${budget.maxBytes} bytes)`);
  t.equal(budget.used, a.bytes + b.bytes, 'the budget is the sum of its tables');
  t.ok(a.peek({ kind: 'Agent', subject: `999-${'x'.repeat(8192)}` }), 'the newest actor is kept');
  t.notOk(a.peek({ kind: 'Agent', subject: `0-${'x'.repeat(8192)}` }), 'the oldest went first');
  t.same(
    b.peek({ kind: 'Human', subject: 'steady' }),
    [1],
    "the growing table paid for its own growth, not the other table's actors",
  );

  a.grew({ kind: 'Agent', subject: `999-${'x'.repeat(8192)}` }, 150_000);
  t.ok(budget.used <= budget.maxBytes, 'growth of a value is charged too');
});
