import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { ManualClock, startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';

const DAY = 86_400_000;
const auth = { SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET, SVC_JOURNAL_KIND: 'rdb-embedded' };

t.test('scan: idle keys, broad agents, the riskiest agent by denials; explain: its timeline; Human only', async (t) => {
  // Forty days ago, so that after advancing the service's clock reads about now, as token lifetimes do.
  const clock = new ManualClock(new Date(Date.now() - 40 * DAY));
  const svc = await startTestService(auth, { clock });
  t.teardown(() => svc.stop());
  const alice = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'alice' })}` });
  const used = await alice.key({ name: 'used', algorithm: 'EdDSA' });
  const idle = await alice.key({ name: 'idle', algorithm: 'AES' });
  clock.advance(40 * DAY);
  await alice.post(`/v1/keys/${used}/sign`, { messageBase64: b64('m') });
  const fresh = await alice.key({ name: 'fresh', algorithm: 'AES' });

  const broad = (
    await alice.post('/v1/agents/issue', {
      label: 'ops-bot',
      scopes: ['Get', 'Sign', 'Verify', 'Encrypt', 'Decrypt', 'Rotate'],
      ttlSeconds: 3600,
    })
  ).body;
  const narrow = (await alice.post('/v1/agents/issue', { label: 'signer', scopes: ['Sign'], ttlSeconds: 3600 })).body;
  const narrowApi = new ApiClient(svc.url, { Authorization: `Bearer ${narrow.jwt}` });
  await narrowApi.post(`/v1/keys/${used}/sign`, { messageBase64: b64('ok') });
  for (let i = 0; i < 3; i++)
    t.equal(
      (await narrowApi.post(`/v1/keys/${idle}/encrypt`, { plaintextBase64: b64('secret plaintext') })).status,
      403,
      'out of scope',
    );

  const scan = await alice.get('/v1/advisor/scan?unusedDays=30&broadScope=5&top=1');
  t.equal(scan.status, 200, JSON.stringify(scan.body));
  t.same(
    scan.body.unusedKeys.map((k: { keyId: string }) => k.keyId),
    [idle],
    'the idle key only: the used one was used, the fresh one is new',
  );
  t.match(scan.body.unusedKeys[0], { lastUsedAt: null });
  t.same(
    scan.body.broadScopeAgents.map((a: { agentId: string }) => a.agentId),
    [broad.agentId],
  );
  t.match(scan.body.broadScopeAgents[0], {
    parent: 'alice',
    scopes: ['Get', 'Sign', 'Verify', 'Encrypt', 'Decrypt', 'Rotate'],
  });
  t.equal(scan.body.riskiestAgents.length, 1, 'top=1');
  t.match(scan.body.riskiestAgents[0], { agentId: narrow.agentId, denials: 3 });
  t.match(scan.body, { truncated: false, window: { until: clock.now().toISOString() } });
  t.ok(scan.body.scannedRecords > 8);
  void fresh;

  const explained = await alice.get(`/v1/advisor/explain/${narrow.agentId}`);
  t.equal(explained.status, 200);
  t.same(
    explained.body.events.map((e: { operation: string; outcome: string }) => `${e.operation}:${e.outcome}`),
    ['Sign:Success', 'Encrypt:PermissionDenied', 'Encrypt:PermissionDenied', 'Encrypt:PermissionDenied'],
    'oldest first',
  );
  t.ok(
    explained.body.events.every(
      (e: { decision?: string }) => e.decision === undefined || ['Allow', 'StepUp', 'Deny'].includes(e.decision),
    ),
  );
  t.match(explained.body.summary, /made 4 call\(s\) \(3 Encrypt, 1 Sign\).*3 refused \(PermissionDenied\)/);
  t.same(explained.body.narration, { provider: 'none', status: 'off' });
  t.notMatch(JSON.stringify(explained.body), /secret plaintext|c2VjcmV0/, 'no plaintext in the explanation');

  const none = await alice.get('/v1/advisor/explain/agent-00000000-0000-4000-8000-000000000000');
  t.equal(none.status, 200, 'an agent with no events is 200');
  t.match(none.body, { events: [], anomalies: [] });
  const capped = await alice.get(`/v1/advisor/explain/${narrow.agentId}?maxEvents=2`);
  t.same(
    capped.body.events.map((e: { operation: string }) => e.operation),
    ['Encrypt', 'Encrypt'],
    'the newest maxEvents',
  );

  const service = new ApiClient(svc.url, {
    Authorization: `Bearer ${await mintToken({ sub: 'svc-batch', svc_kind: 'service' })}`,
  });
  t.equal((await service.get('/v1/advisor/scan')).status, 403, 'a Service may not');
  t.equal(
    (await narrowApi.get(`/v1/advisor/explain/${narrow.agentId}`)).status,
    403,
    'an agent may not explain itself',
  );
  const audited = (await alice.get('/v1/audit?op=Query&actor=alice&limit=10')).body.records;
  t.ok(
    audited.some((r: { resource: string }) => r.resource === `agent:${narrow.agentId}`),
    'an explain call is audited with the agent as resource',
  );
});

t.test('501 without a queryable audit sink', async (t) => {
  const svc = await startTestService({ SVC_AUDIT_KIND: 'stdout' });
  t.teardown(() => svc.stop());
  const scan = await svc.client().get('/v1/advisor/scan');
  t.equal(scan.status, 501);
  t.equal(scan.body.error, 'FeatureNotSupported');
  t.equal((await svc.client().get('/v1/advisor/explain/agent-x')).status, 501);
});

t.test('the scan reads at most its row cap and says truncated', async (t) => {
  const { readWindow } = await import('../../plugins/advisor/audit-window.ts');
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const api = svc.client();
  for (let i = 0; i < 12; i++) await api.get('/v1/keys/00000000-0000-4000-8000-000000000000');
  const sink = svc.kernel.container.resolve('audit') as Parameters<typeof readWindow>[0];
  const window = { since: '2000-01-01T00:00:00.000Z', until: '2100-01-01T00:00:00.000Z' };
  t.match(await readWindow(sink, window, 5), { truncated: true, records: { length: 5 } });
  t.match(await readWindow(sink, window, 1000), { truncated: false });
});

t.test('provider none sends nothing anywhere, even with a base URL set', async (t) => {
  const rx = await webhookReceiver();
  t.teardown(() => rx.close());
  const svc = await startTestService({ SVC_ADVISOR_LLM_BASE_URL: rx.url });
  t.teardown(() => svc.stop());
  const r = await svc.client().get('/v1/advisor/explain/agent-x');
  t.same(r.body.narration, { provider: 'none', status: 'off' });
  t.equal(rx.posts.length, 0);
});

t.test('explain narrated by an OpenAI-compatible provider; boot refuses a provider without its key', async (t) => {
  const { llmStandIn } = await import('../helpers/llm-stand-in.ts');
  const llm = await llmStandIn(() => ({
    status: 200,
    body: { choices: [{ message: { content: 'It did nothing.' } }] },
  }));
  t.teardown(() => llm.close());
  const svc = await startTestService({
    SVC_ADVISOR_LLM_PROVIDER: 'openai',
    SVC_ADVISOR_LLM_API_KEY: 'sk-stand-in',
    SVC_ADVISOR_LLM_BASE_URL: llm.url,
  });
  t.teardown(() => svc.stop());
  const r = await svc.client().get('/v1/advisor/explain/agent-quiet');
  t.same(r.body.narration, { provider: 'openai', status: 'ok', text: 'It did nothing.' });
  t.match(r.body.summary, /agent-quiet made no calls/);
  t.notMatch(svc.logs.join('\n'), /sk-stand-in/, 'the API key is never printed');
  await t.rejects(
    startTestService({ SVC_ADVISOR_LLM_PROVIDER: 'anthropic' }),
    /SVC_ADVISOR_LLM_API_KEY\) is required for provider anthropic/,
  );
  await t.rejects(
    startTestService({ SVC_ADVISOR_LLM_PROVIDER: 'ollama', SVC_ADVISOR_LLM_BASE_URL: 'http://gpu-box.lan:11434' }),
    /must be https/,
  );
});
