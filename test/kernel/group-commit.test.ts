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
