import { request } from 'node:http';
import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { mcpClient, mcpPost, toolsCall } from '../helpers/mcp-client.ts';
import { ManualClock, startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';
import { until } from '../helpers/until.ts';

/** A tools/call POSTed from a chosen loopback address: how a "new source address" reaches the service in a test. */
function mcpPostFrom(
  localAddress: string,
  url: string,
  headers: Record<string, string>,
  message: unknown,
): Promise<any> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(message);
    const req = request(
      `${url}/mcp`,
      {
        method: 'POST',
        localAddress,
        headers: {
          ...headers,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Content-Length': Buffer.byteLength(data),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const hmac = { SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET };
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** An audit record without what differs between two calls of the same thing (ids, times, the door). */
const comparable = (r: any) => ({
  operation: r.operation,
  resource: r.resource,
  outcome: r.outcome,
  principal: r.principal,
});

t.test(
  'an agent sees only its scopes; a call outside them is the REST ' +
    'refusal, as a tool error, audited alike with door mcp',
  async (t) => {
    const svc = await startTestService({ ...hmac, SVC_RISK_ENABLED: 'false' });
    t.teardown(() => svc.stop());
    const alice = new ApiClient(svc.url, bearer(await mintToken({ sub: 'alice' })));
    const key = await alice.key({ name: 'scoped', algorithm: 'AES' });
    const issued = (await alice.post('/v1/agents/issue', { label: 'bot', scopes: ['Encrypt', 'Get'], ttlSeconds: 600 }))
      .body;
    const mcp = await mcpClient(svc.url, bearer(issued.jwt));
    t.teardown(() => mcp.close());
    t.same(
      (await mcp.listTools()).tools.map((x) => x.name).sort(),
      ['encrypt', 'generate_data_key', 'get_key', 'get_key_jwks', 'get_public_key', 'list_aliases'],
      'Encrypt and Get only (a data key is an Encrypt, listing aliases and a JWKS a Get); no Human-only tool',
    );

    const viaMcp = await mcp.tool('decrypt', { keyId: key, ciphertextBase64: b64('x') });
    const viaRest = await new ApiClient(svc.url, bearer(issued.jwt)).post(`/v1/keys/${key}/decrypt`, {
      ciphertextBase64: b64('x'),
    });
    t.equal(viaRest.status, 403);
    t.equal(viaMcp.isError, true);
    t.same(viaMcp.structuredContent, viaRest.body, 'the REST error code and message');
    t.same(JSON.parse(viaMcp.content[0]!.text!), viaRest.body);
    const humanOnly = await mcp.tool('query_audit', {});
    t.match(humanOnly.structuredContent, { error: 'PermissionDenied' }, 'a Human-only tool called anyway is refused');

    const rows = (await alice.get(`/v1/audit?key=${key}&op=Decrypt`)).body.records;
    t.equal(rows.length, 2);
    t.same(comparable(rows[1]), comparable(rows[0]), 'the same record');
    t.same(rows.map((r: any) => r.context.door).sort(), ['http', 'mcp']);
  },
);

t.test('step-up, risk deny and the kill switch over MCP', async (t) => {
  const clock = new ManualClock(new Date());
  const svc = await startTestService(hmac, { clock });
  t.teardown(() => svc.stop());
  const alice = new ApiClient(svc.url, bearer(await mintToken({ sub: 'alice' })));
  const key = await alice.key({ algorithm: 'AES' });
  const issued = (
    await alice.post('/v1/agents/issue', {
      label: 'ops-bot',
      scopes: ['Get', 'Sign', 'Encrypt', 'Rotate', 'Revoke'],
      ttlSeconds: 1000,
    })
  ).body;
  const mcp = await mcpClient(svc.url, bearer(issued.jwt));
  t.teardown(() => mcp.close());

  clock.advance(850_000); // near the end of the token's life: a destructive call is stepped up
  const stepped = await mcp.tool('rotate_key', { keyId: key });
  clock.advance(-850_000);
  t.match(stepped, {
    isError: true,
    structuredContent: { error: 'StepUpRequired', message: /^step-up authentication required/ },
  });
  t.match((await alice.auditOf(key)).at(-1), {
    operation: 'Rotate',
    outcome: 'StepUpRequired',
    context: { door: 'mcp', 'outcome.decision': 'StepUp' },
  });

  // Deny: destructive, near the end of the token's life, from an address the agent never used. A second
  // agent, whose first call is made now: the first one's only call so far was the stepped-up one, and when
  // the jump crossed into the next hour, now would be an hour it never used (TimeOfDayBaseline, a step-up).
  const second = (
    await alice.post('/v1/agents/issue', {
      label: 'ops-bot-2',
      scopes: ['Get', 'Sign', 'Encrypt', 'Rotate', 'Revoke'],
      ttlSeconds: 1000,
    })
  ).body;
  const mcp2 = await mcpClient(svc.url, bearer(second.jwt));
  t.teardown(() => mcp2.close());
  t.notOk((await mcp2.tool('rotate_key', { keyId: key })).isError, 'fresh token, usual address: allowed');
  clock.advance(850_000);
  const denied = await mcpPostFrom('127.0.0.2', svc.url, bearer(second.jwt), toolsCall('rotate_key', { keyId: key }));
  clock.advance(-850_000);
  t.match(denied.result, {
    isError: true,
    structuredContent: {
      error: 'PermissionDenied',
      message: /^risk: score .* deny threshold 0\.70 for a destructive operation$/,
    },
  });
  t.match((await alice.auditOf(key)).at(-1), {
    outcome: 'PermissionDenied',
    context: { door: 'mcp', 'source.ip': '127.0.0.2', 'outcome.decision': 'Deny' },
  });

  t.equal((await alice.post(`/v1/agents/${issued.agentId}/revoke`, {})).status, 200, 'the kill switch');
  const after = await mcpPost(svc.url, bearer(issued.jwt), toolsCall('get_key', { keyId: key }));
  t.equal(after.status, 401, 'a revoked agent is refused before its message is read');
  t.match(after.body, { error: 'Unauthorized', message: /revoked/ });
});

t.test('the rate limit over MCP is the REST one: TooManyRequests as a tool error', async (t) => {
  const svc = await startTestService({
    ...hmac,
    SVC_RISK_ENABLED: 'false',
    SVC_RATE_LIMIT_RPS: '1',
    SVC_RATE_LIMIT_BURST: '5',
  });
  t.teardown(() => svc.stop());
  const alice = new ApiClient(svc.url, bearer(await mintToken({ sub: 'alice' })));
  const mcp = await mcpClient(svc.url, bearer(await mintToken({ sub: 'alice' })));
  t.teardown(() => mcp.close());
  let limited: unknown;
  for (let i = 0; i < 20 && !limited; i++) {
    const answer = await mcp.tool('get_key', { keyId: '00000000-0000-4000-8000-000000000000' });
    if (answer.structuredContent?.error === 'TooManyRequests') limited = answer;
  }
  t.match(limited, { isError: true, structuredContent: { message: /over its rate limit/ } });
  let rows: any[] = [];
  // Alice's own budget is spent too (her agent's and her calls share it): read once it has refilled.
  await until(async () => {
    const page = await alice.get('/v1/audit?op=Get&limit=100');
    rows = page.body.records;
    return page.status === 200;
  }, 'the budget to refill');
  t.ok(
    rows.some((r: any) => r.outcome === 'TooManyRequests' && r.context.door === 'mcp'),
    'audited as over REST',
  );
});

t.test('a honey key touched over MCP: the detector fires and the auto-responder cuts the agent off', async (t) => {
  const dir = tempDir();
  const base = { ...hmac, SVC_JOURNAL_KIND: 'rdb-embedded' };
  const first = await startTestService(base, { dir });
  const adminToken = await mintToken({ sub: 'alice' });
  const honey = await new ApiClient(first.url, bearer(adminToken)).key({ algorithm: 'AES' });
  await first.stop();
  const svc = await startTestService({ ...base, SVC_HONEY_KEYS: honey }, { dir });
  t.teardown(() => svc.stop());
  const alice = new ApiClient(svc.url, bearer(adminToken));
  const agent = (
    await alice.post('/v1/agents/issue', { label: 'curious', scopes: ['Get', 'Encrypt'], ttlSeconds: 600 })
  ).body;
  const mcp = await mcpClient(svc.url, bearer(agent.jwt));
  t.teardown(() => mcp.close());
  t.notOk((await mcp.tool('encrypt', { keyId: honey, plaintextBase64: b64('taken') })).isError);
  await until(
    async () => (await mcpPost(svc.url, bearer(agent.jwt), toolsCall('get_key', { keyId: honey }))).status === 401,
    'the agent to be revoked',
  );
  const rows = (await alice.get(`/v1/audit?key=agent:${agent.agentId}`)).body.records;
  t.match(
    rows.find((r: any) => r.context['auto.response.rule'] === 'HoneyKey:High:RevokeAgent'),
    { principal: { subject: 'svc-system' }, context: { door: 'internal' } },
  );
  t.match(
    (await alice.auditOf(honey)).find((r: any) => r.principal.subject === agent.agentId),
    { operation: 'Encrypt', context: { door: 'mcp' } },
  );
});

t.test('role-based Humans see the tools some binding grants them', async (t) => {
  const svc = await startTestService({
    ...hmac,
    SVC_RISK_ENABLED: 'false',
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_ROLE_BINDINGS: JSON.stringify({
      users: { operations: ['Create', 'Get', 'Encrypt', 'Decrypt'], keys: ['owner:self'] },
      auditors: ['Query'],
    }),
  });
  t.teardown(() => svc.stop());
  const user = await mcpClient(svc.url, bearer(await mintToken({ sub: 'carol', groups: ['users'] })));
  const auditor = await mcpClient(svc.url, bearer(await mintToken({ sub: 'dave', groups: ['auditors'] })));
  t.teardown(() => Promise.all([user.close(), auditor.close()]));
  const names = async (c: typeof user) => (await c.listTools()).tools.map((x) => x.name).sort();
  t.same(await names(user), [
    'create_key',
    'decrypt',
    'encrypt',
    'generate_data_key',
    'get_key',
    'get_key_jwks',
    'get_public_key',
    'list_agents',
    'list_aliases',
    'reencrypt',
    'revoke_agent',
  ]);
  t.same(await names(auditor), ['advisor_explain', 'advisor_scan', 'list_agents', 'query_audit', 'revoke_agent']);
});
