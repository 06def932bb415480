import path from 'node:path';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { obeyedWithin, OPS, POLICY_ENV, policyVersionsAudited } from '../helpers/live-policy.ts';
import { tempDir } from '../helpers/service.ts';
import { Connection, startWorkerNode } from '../helpers/worker-node.ts';

// SQLite serves one node, whose worker processes share the file: a change made through one worker is
// obeyed by the other within 2 s, and kept across a restart.
t.test('two worker processes sharing SQLite, and a restart', async (t) => {
  const dir = tempDir('svc-kms-live-policy-');
  // The journal and the KEK outlive the node; each node's audit trail is its own (servedBy reads it).
  const storage = { SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(dir, 'journal.db')}`, SVC_DATA_DIR: dir };
  let node = await startWorkerNode(2, undefined, { ...POLICY_ENV, ...storage });
  t.teardown(() => node.close());
  const ops = () => new ApiClient(node.url, { 'X-Svc-User': 'ops' });
  const key = await ops().key({ algorithm: 'AES' });
  // A kept-alive connection stays with the worker that accepted it: one of bob's per worker.
  const bob = new Map<string, Connection>();
  for (let i = 0; i < 16 && bob.size < 2; i++) {
    const conn = new Connection(node.url, `bob${i}`, 'bob');
    const probe = await conn.call('GET', `/v1/keys/${key}`);
    t.equal(probe.status, 403, 'bob may not read the key');
    const worker = await node.servedBy(probe.requestId);
    if (bob.has(worker)) await conn.close();
    else bob.set(worker, conn);
  }
  t.teardown(() => Promise.all([...bob.values()].map((c) => c.close())));
  t.equal(bob.size, 2, 'a connection on each worker');

  const { etag } = (await ops().get('/v1/policy')).body;
  const requestId = `live-policy-put-${Date.now()}`;
  const put = await ops().call(
    'PUT',
    '/v1/policy',
    { roleBindings: {}, subjectBindings: { ...OPS, bob: ['Get'] } },
    { 'If-Match': etag, 'X-Request-Id': requestId },
  );
  const written = Date.now();
  t.equal(put.status, 200);
  const writer = await node.servedBy(requestId);
  const other = [...bob.keys()].find((w) => w !== writer)!;
  t.comment(`the PUT was served by worker ${writer}`);
  t.equal((await bob.get(writer)!.call('GET', `/v1/keys/${key}`)).status, 200, 'the writing worker obeys at once');
  await obeyedWithin(
    t,
    `worker ${other} lets bob read after the PUT on worker ${writer}`,
    written,
    async () => (await bob.get(other)!.call('GET', `/v1/keys/${key}`)).status === 200,
  );

  t.same(await policyVersionsAudited(ops(), 2), ['1', '2'], 'every version audited once');

  for (const conn of bob.values()) await conn.close();
  await node.close();
  node = await startWorkerNode(1, undefined, { ...POLICY_ENV, ...storage });
  const restarted = await ops().get('/v1/policy');
  t.equal(restarted.body.version, 2, 'the restarted node applies the latest version, not the configured bindings');
  t.equal((await new ApiClient(node.url, { 'X-Svc-User': 'bob' }).get(`/v1/keys/${key}`)).status, 200);
});
