import t from 'tap';
import { GroupCommit } from '../../kernel/audit/group-commit.ts';
import { SvcError } from '../../kernel/errors.ts';

t.test('a batch the store refuses is written again item by item: only the bad item fails', async (t) => {
  const stored: string[] = [];
  const batches: number[] = [];
  const commit = new GroupCommit<string>((batch) => {
    batches.push(batch.length);
    if (batch.includes('poison')) throw new Error('value too long for type character varying(300)');
    stored.push(...batch);
  });
  const results = await Promise.allSettled(['a', 'b', 'poison', 'c'].map((item) => commit.add(item)));
  t.same(
    results.map((r) => r.status),
    ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
  );
  t.same(stored, ['a', 'b', 'c'], 'the others are stored, in order');
  t.same(batches, [4, 1, 1, 1, 1], 'one batch, then one write per item');
});

t.test('a store that cannot be reached fails the whole batch at once (no retry per item)', async (t) => {
  let writes = 0;
  const commit = new GroupCommit<string>(() => {
    writes++;
    throw new SvcError('ServiceUnavailable', 'the audit database is unreachable');
  });
  const results = await Promise.allSettled(['a', 'b', 'c'].map((item) => commit.add(item)));
  t.ok(results.every((r) => r.status === 'rejected'));
  t.equal(writes, 1);
});

t.test(
  'with an interval, writes start at least that far apart and what arrives meanwhile goes in one batch',
  async (t) => {
    const INTERVAL = 40;
    const starts: number[] = [];
    const batches: string[][] = [];
    const commit = new GroupCommit<string>(
      (batch) => {
        starts.push(performance.now());
        batches.push([...batch]);
      },
      1000,
      INTERVAL,
    );
    await commit.add('first');
    // Ten records added one by one, each after the previous is stored or after a turn of the event loop.
    const later = [];
    for (let i = 0; i < 10; i++) {
      later.push(commit.add(`r${i}`));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(later);
    t.same(batches[0], ['first'], 'an idle commit writes its first record by itself');
    t.same(batches.flat(), ['first', ...Array.from({ length: 10 }, (_, i) => `r${i}`)], 'every record, in order');
    t.ok(batches.length < 11, `the ten later records share writes (${batches.length - 1} writes for 10)`);
    // Each start is read a few microseconds into its write: half a millisecond of slack for that, not for the timer.
    for (let i = 1; i < starts.length; i++)
      t.ok(
        starts[i]! - starts[i - 1]! >= INTERVAL - 0.5,
        `write ${i} started ${INTERVAL} ms or more after the one before`,
      );
  },
);

t.test(
  'with an interval, an idle commit writes at once: the interval only spaces writes that follow each other',
  async (t) => {
    let writes = 0;
    const commit = new GroupCommit<string>(
      () => {
        writes++;
      },
      1000,
      600_000,
    );
    // Were the first write held for the interval, this would wait ten minutes; the test's timeout would end it.
    await commit.add('a');
    t.equal(writes, 1);
  },
);

t.test(
  'with an interval, a batch that reaches the full size is written at once instead of waiting it out',
  async (t) => {
    const batches: string[][] = [];
    const commit = new GroupCommit<string>(
      (batch) => {
        batches.push([...batch]);
      },
      1000,
      600_000,
      3,
    );
    await commit.add('first');
    // Two records: fewer than a full batch, so they wait for the interval (ten minutes here).
    const waiting = [commit.add('a'), commit.add('b')];
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    t.same(batches, [['first']], 'a batch below the full size waits');
    // The third fills the batch: were it held for the interval, this would wait ten minutes and time out.
    await Promise.all([...waiting, commit.add('c')]);
    t.same(batches, [['first'], ['a', 'b', 'c']]);

    // Filled within one turn of the event loop, before the wait was even set: written at once as well.
    await Promise.all([commit.add('d'), commit.add('e'), commit.add('f'), commit.add('g')]);
    t.same(batches.slice(2), [['d', 'e', 'f', 'g']]);
  },
);
