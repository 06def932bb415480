import t from 'tap';
import { freshDatabase } from '../helpers/databases.ts';
import { keyModelSuite } from '../helpers/key-model-suite.ts';
import { spawnService } from '../helpers/process.ts';
import { startTestService } from '../helpers/service.ts';
import { ApiClient } from '../helpers/client.ts';
import { connectionPerWorker, startWorkerNode } from '../helpers/worker-node.ts';

// Aliases, tags and the reversible disable on every journal backend, through two nodes sharing it
// (the in-memory journal belongs to one process: both sides are that node).

t.test('in-memory journal (one node)', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  keyModelSuite(t, svc.client('ops'), svc.client('ops'));
});

t.test('rdb-embedded (SQLite): two workers sharing the file', async (t) => {
  const node = await startWorkerNode(2, undefined);
  t.teardown(() => node.close());
  const conns = await connectionPerWorker(node, 2);
  t.teardown(() => Promise.all([...conns.values()].map((c) => c.close())));
  keyModelSuite(t, conns.get('w1')!, conns.get('w2')!);
});

for (const kind of ['postgresql', 'mysql'] as const) {
  t.test(`${kind === 'mysql' ? 'MariaDB' : 'PostgreSQL'}: two nodes`, async (t) => {
    const db = await freshDatabase(t, kind);
    if (!db) return;
    const nodes = await Promise.all(
      [1, 2].map(async () => {
        const proc = spawnService({ SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', ...db.env });
        t.teardown(() => proc.child.kill('SIGTERM'));
        return new ApiClient(`http://127.0.0.1:${await proc.listening}`, { 'X-Svc-User': 'ops' });
      }),
    );
    keyModelSuite(t, nodes[0]!, nodes[1]!);
  });
}
