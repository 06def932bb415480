import { availableParallelism } from 'node:os';
import t from 'tap';
import { configuredWorkers, workerCountOf, workerNodeId } from '../../config/workers.ts';
import { unshareableSettings } from '../../app/cluster/shareable.ts';

t.test('server.workers: a whole number of at least 1, or auto for the usable cores', async (t) => {
  t.equal(workerCountOf('auto'), availableParallelism());
  t.equal(workerCountOf('4'), 4);
  t.equal(workerCountOf(2), 2, 'a number from a config file');
  for (const bad of ['0', '', 'two', '-1', '1.5', '1e3', ' auto2'])
    t.equal(workerCountOf(bad), undefined, JSON.stringify(bad));
  t.equal(configuredWorkers({ server: { workers: '1' } }), 1);
});

t.test('a worker is named by its slot, so a replacement continues its node', async (t) => {
  t.equal(workerNodeId('kms-a', 2), 'kms-a-w2');
});

t.test('what several workers cannot share', async (t) => {
  const shared = {
    journal: { kind: 'rdb-server-1' },
    audit: { kind: 'rdb-server-1' },
    revocation: { kind: 'kv-store' },
  };
  t.same(unshareableSettings(shared, 8), []);
  t.same(unshareableSettings({ ...shared, revocation: { kind: 'none' } }, 2), []);
  t.same(unshareableSettings({ ...shared, journal: { kind: 'rdb-embedded' }, audit: { kind: 'rdb-embedded' } }, 2), []);
  t.same(
    unshareableSettings(
      { journal: { kind: 'in-memory' }, audit: { kind: 'stdout' }, revocation: { kind: 'in-memory' } },
      1,
    ),
    [],
    'one worker shares nothing',
  );
  const refused = unshareableSettings({ ...shared, journal: { kind: 'in-memory' } }, 2);
  t.equal(refused.length, 1);
  t.match(refused[0], /^journal\.kind \(env SVC_JOURNAL_KIND\) is "in-memory"/);
});
