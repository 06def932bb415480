import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { freshDatabase, type ServerKind } from '../helpers/databases.ts';
import { obeyedWithin, OPS, POLICY_ENV, policyVersionsAudited, putPolicy } from '../helpers/live-policy.ts';
import { spawnService, type ServiceProcess } from '../helpers/process.ts';

// Two nodes on one database server: a change made through one is obeyed by the other within 2 s, and kept
// across a restart (live-policy-sqlite.test.ts: worker processes on SQLite).
for (const kind of ['postgresql', 'mysql'] as ServerKind[]) {
  t.test(`two nodes sharing ${kind}`, async (t) => {
    const db = await freshDatabase(t, kind);
    if (!db) return;
    const env = { SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', ...db.env, ...POLICY_ENV };
    const start = async (): Promise<{ proc: ServiceProcess; url: string }> => {
      const proc = spawnService(env);
      return { proc, url: `http://127.0.0.1:${await proc.listening}` };
    };
    const a = await start();
    let b = await start();
    t.teardown(() => {
      a.proc.child.kill('SIGTERM');
      b.proc.child.kill('SIGTERM');
    });
    const opsA = new ApiClient(a.url, { 'X-Svc-User': 'ops' });
    const bobA = new ApiClient(a.url, { 'X-Svc-User': 'bob' });
    let opsB = new ApiClient(b.url, { 'X-Svc-User': 'ops' });
    let bobB = new ApiClient(b.url, { 'X-Svc-User': 'bob' });
    const key = await opsA.key({ algorithm: 'AES' });
    const bobReads = async (client: ApiClient) => (await client.get(`/v1/keys/${key}`)).status === 200;

    t.equal((await opsB.get('/v1/policy')).body.version, 1, 'both nodes found the one seeded version');
    t.notOk(await bobReads(bobB), 'bob may not read the key');
    const v1 = (await opsA.get('/v1/policy')).body.etag;
    const v2 = await putPolicy(opsA, { ...OPS, bob: ['Get'] }, v1);
    const written = Date.now();
    t.equal(v2.status, 200);
    t.equal(v2.body.version, 2);
    t.ok(await bobReads(bobA), 'node A obeys at once');
    await obeyedWithin(t, 'node B lets bob read after the PUT on node A', written, () => bobReads(bobB));

    const stale = await putPolicy(opsB, OPS, v1);
    t.equal(stale.status, 412, "node B refuses a change over version 1: node A's version 2 came first");

    b.proc.child.kill('SIGTERM');
    await b.proc.exited;
    b = await start();
    opsB = new ApiClient(b.url, { 'X-Svc-User': 'ops' });
    bobB = new ApiClient(b.url, { 'X-Svc-User': 'bob' });
    const restarted = await opsB.get('/v1/policy');
    t.equal(restarted.body.version, 2, 'node B restarted with the latest version, not the configured bindings');
    t.equal(restarted.body.etag, v2.body.etag);
    t.ok(await bobReads(bobB), 'and decides with it');

    const v3 = await putPolicy(opsB, OPS, v2.body.etag);
    const revoked = Date.now();
    t.equal(v3.status, 200);
    t.notOk(await bobReads(bobB), 'node B obeys its own change at once');
    await obeyedWithin(t, 'node A refuses bob after the PUT on node B', revoked, async () => !(await bobReads(bobA)));

    t.same(await policyVersionsAudited(opsA, 3), ['1', '2', '3'], 'every version audited once, on the shared trail');
  });
}
