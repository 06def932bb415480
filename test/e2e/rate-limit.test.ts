import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';

t.test('per-principal rate limit: 429 with Retry-After beyond the burst, audited and counted; others unaffected', async (t) => {
  // One token a second: the five calls below would have to take a whole second for a refill to blur them.
  const svc = await startTestService({ SVC_RATE_LIMIT_RPS: '1', SVC_RATE_LIMIT_BURST: '3' });
  t.teardown(() => svc.stop());
  const alice = svc.client('alice');
  const key = (await svc.client('owner').post('/v1/keys', { spec: { name: 'k', algorithm: 'AES' } })).body.id;
  const calls = [];
  for (let i = 0; i < 5; i++) calls.push(await alice.get(`/v1/keys/${key}`));
  t.same(calls.map((c) => c.status), [200, 200, 200, 429, 429], 'three calls of burst, then refused');
  const refused = calls[3]!;
  t.equal(refused.body.error, 'TooManyRequests');
  t.match(refused.body.message, /alice is over its rate limit of 1 requests per second \(burst 3\)/);
  t.equal(refused.headers.get('retry-after'), '1', 'Retry-After in whole seconds');
  t.equal((await svc.client('bob').get(`/v1/keys/${key}`)).status, 200, 'another principal has its own bucket');

  const rows = (await svc.client('auditor').get(`/v1/audit?actor=alice&limit=10`)).body.records;
  t.equal(rows.filter((r: any) => r.outcome === 'TooManyRequests').length, 2, 'each refused call has its audit record');
  const metrics = await (await fetch(`${svc.url}/metrics`)).text();
  t.match(metrics, /svc_rate_limited_total\{kind="Human"\} 2/);
  t.match(metrics, /svc_keys_op_errors_total\{operation="Get",code="TooManyRequests"\} 2/);

  // A token comes back each second: alice gets through again within about a second.
  const since = Date.now();
  let status = 429;
  while (status === 429 && Date.now() - since < 5000) status = (await alice.get(`/v1/keys/${key}`)).status;
  t.equal(status, 200, `alice passes again after ${Date.now() - since} ms`);
});

t.test('rateLimit.enabled=false: no limit at all', async (t) => {
  const svc = await startTestService({ SVC_RATE_LIMIT_ENABLED: 'false', SVC_RATE_LIMIT_RPS: '1', SVC_RATE_LIMIT_BURST: '1' });
  t.teardown(() => svc.stop());
  const alice = svc.client('alice');
  const key = (await alice.post('/v1/keys', { spec: { name: 'k', algorithm: 'AES' } })).body.id;
  await alice.post(`/v1/keys/${key}/activate`);
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => alice.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64(`m${i}`) })));
  t.same([...new Set(results.map((r) => r.status))], [200]);
});
