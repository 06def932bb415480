import t from 'tap';
import { ActorTable } from '../../kernel/detection/actor-table.ts';

t.test('state is per kind and subject, bounded per kind, least recently seen dropped first', async (t) => {
  const table = new ActorTable<string>(2);
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
