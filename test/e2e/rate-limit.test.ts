import { randomUUID } from 'node:crypto';
import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

t.test(
  'per-principal rate limit: 429 with Retry-After beyond the burst, audited and counted; others unaffected',
  async (t) => {
    // One token a second: the five calls below would have to take a whole second for a refill to blur them.
    const svc = await startTestService({ SVC_RATE_LIMIT_RPS: '1', SVC_RATE_LIMIT_BURST: '3' });
    t.teardown(() => svc.stop());
    const alice = svc.client('alice');
    const key = (await svc.client('owner').post('/v1/keys', { spec: { name: `k-${randomUUID()}`, algorithm: 'AES' } }))
      .body.id;
    const calls = [];
    for (let i = 0; i < 5; i++) calls.push(await alice.get(`/v1/keys/${key}`));
    t.same(
      calls.map((c) => c.status),
      [200, 200, 200, 429, 429],
      'three calls of burst, then refused',
    );
    const refused = calls[3]!;
    t.equal(refused.body.error, 'TooManyRequests');
    t.match(refused.body.message, /alice is over its rate limit of 1 requests per second \(burst 3\)/);
    t.equal(refused.headers.get('retry-after'), '1', 'Retry-After in whole seconds');
    t.equal((await svc.client('bob').get(`/v1/keys/${key}`)).status, 200, 'another principal has its own bucket');

    const rows = (await svc.client('auditor').get(`/v1/audit?actor=alice&limit=10`)).body.records;
    t.equal(
      rows.filter((r: any) => r.outcome === 'TooManyRequests').length,
      2,
      'each refused call has its audit record',
    );
    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    t.match(metrics, /svc_rate_limited_total\{kind="Human"\} 2/);
    t.match(metrics, /svc_keys_op_errors_total\{operation="Get",code="TooManyRequests"\} 2/);

    // A token comes back each second: alice gets through again within about a second.
    const since = Date.now();
    let status = 429;
    while (status === 429 && Date.now() - since < 5000) status = (await alice.get(`/v1/keys/${key}`)).status;
    t.equal(status, 200, `alice passes again after ${Date.now() - since} ms`);
  },
);

t.test('rateLimit.enabled=false: no limit at all', async (t) => {
  const svc = await startTestService({
    SVC_RATE_LIMIT_ENABLED: 'false',
    SVC_RATE_LIMIT_RPS: '1',
    SVC_RATE_LIMIT_BURST: '1',
  });
  t.teardown(() => svc.stop());
  const alice = svc.client('alice');
  const key = (await alice.post('/v1/keys', { spec: { name: `k-${randomUUID()}`, algorithm: 'AES' } })).body.id;
  await alice.post(`/v1/keys/${key}/activate`);
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => alice.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64(`m${i}`) })),
  );
  t.same([...new Set(results.map((r) => r.status))], [200]);
});

t.test(
  "an agent's calls count against its parent's limit too: a user's agents share its rate, they do not multiply it",
  async (t) => {
    // One token a second and a burst of 4: alice spends 3 on her key and two agents, so about one is left for all of
    // them.
    const svc = await startTestService({
      SVC_AUTH_KIND: 'hmac',
      SVC_AUTH_HMAC_SECRET: TEST_SECRET,
      SVC_RATE_LIMIT_RPS: '1',
      SVC_RATE_LIMIT_BURST: '4',
    });
    t.teardown(() => svc.stop());
    const alice = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'alice' })}` });
    const key = await alice.key({ algorithm: 'AES' }, false);
    const agents = [];
    for (const label of ['one', 'two']) {
      const issued = await alice.post('/v1/agents/issue', { label, scopes: ['Get'], ttlSeconds: 600 });
      t.equal(issued.status, 200);
      agents.push(new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` }));
    }
    // Each agent alone is within its own burst of 4; together with alice they are far over hers.
    const calls = await Promise.all(
      agents.flatMap((agent) => Array.from({ length: 4 }, () => agent.get(`/v1/keys/${key}`))),
    );
    const passed = calls.filter((c) => c.status === 200).length;
    t.ok(passed <= 3, `${passed} of 8 agent calls passed: the parent's bucket bounds them all`);
    const refused = calls.find((c) => c.status === 429);
    t.match(
      refused?.body.message,
      /^agent-[0-9a-f-]{36}'s parent alice is over its rate limit of 1 requests per second \(burst 4\)/,
    );
    t.ok(refused?.headers.get('retry-after'), 'Retry-After is sent');
    t.equal((await alice.get(`/v1/keys/${key}`)).status, 429, "alice's own calls are limited by what her agents used");
  },
);
