import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { mcpPost, toolsCall } from '../helpers/mcp-client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// The door answers every POST with one long-lived MCP server: callers in flight at the same time, with the
// same JSON-RPC ids, must each get their own answers, and nothing one caller sends may reach another's call.
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_RISK_ENABLED: 'false',
});
t.teardown(() => svc.stop());
const aliceAuth = { Authorization: `Bearer ${await mintToken({ sub: 'alice' })}` };
const alice = new ApiClient(svc.url, aliceAuth);
const key = await alice.key({ algorithm: 'AES' });
const agent = (await alice.post('/v1/agents/issue', { label: 'reader', scopes: ['Get'], ttlSeconds: 600 })).body;
const agentAuth = { Authorization: `Bearer ${agent.jwt}` };
const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const names = (answer: any): string[] => answer.result.tools.map((tool: { name: string }) => tool.name).sort();

t.test('two callers at once with the same ids: each gets its own id back and its own tools', async (t) => {
  const [aliceTools, agentTools] = await Promise.all([
    mcpPost(svc.url, aliceAuth, listTools),
    mcpPost(svc.url, agentAuth, listTools),
  ]);
  t.ok(names(agentTools.body).length < names(aliceTools.body).length, 'the agent sees fewer tools than alice');
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) => mcpPost(svc.url, i % 2 ? agentAuth : aliceAuth, listTools)),
  );
  answers.forEach((answer, i) => {
    t.equal(answer.status, 200);
    t.equal(answer.body.id, 1, "the caller's own id");
    t.same(
      names(answer.body),
      names((i % 2 ? agentTools : aliceTools).body),
      i % 2 ? "the agent's tools" : "alice's tools",
    );
  });
  // The agent may not encrypt: its call, in flight with alice's of the same id, is refused as the agent's.
  const encrypt = toolsCall('encrypt', { keyId: key, plaintextBase64: b64('x') }, 'same');
  const [mine, theirs] = await Promise.all([
    mcpPost(svc.url, aliceAuth, encrypt),
    mcpPost(svc.url, agentAuth, encrypt),
  ]);
  t.match(mine.body, { id: 'same', result: { structuredContent: { ciphertextBase64: String } } });
  t.match(theirs.body, { id: 'same', result: { isError: true, structuredContent: { error: 'PermissionDenied' } } });
});

t.test("a batch: answers in order under the caller's ids; notifications in it get none", async (t) => {
  const batch = [
    toolsCall('get_key', { keyId: key }, 'a'),
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { ...listTools, id: 7 },
    { jsonrpc: '2.0', id: 'c', method: 'no/such' },
  ];
  const answer = await mcpPost(svc.url, aliceAuth, batch);
  t.equal(answer.status, 200);
  t.same(
    answer.body.map((m: { id: unknown }) => m.id),
    ['a', 7, 'c'],
  );
  t.match(answer.body, [
    { result: { structuredContent: { id: key } } },
    { result: { tools: Array } },
    { error: { code: -32601 } },
  ]);
  const onlyNotification = await mcpPost(svc.url, aliceAuth, { jsonrpc: '2.0', method: 'notifications/initialized' });
  t.equal(onlyNotification.status, 202);
});

t.test("a cancellation naming any request id cannot stop another caller's call", async (t) => {
  // The calls in flight have ids of the door's own; an attacker naming every small id, string or number,
  // while they run must not leave them unanswered.
  const cancels = Array.from({ length: 200 }, (_, i) => ({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId: i < 100 ? i : String(i - 100), reason: 'x' },
  }));
  const calls = Array.from({ length: 10 }, (_, i) =>
    mcpPost(svc.url, aliceAuth, toolsCall('encrypt', { keyId: key, plaintextBase64: b64(`m${i}`) }, i)),
  );
  // Two POSTs: a batch holds at most 100 messages.
  const cancelled = await Promise.all([
    mcpPost(svc.url, agentAuth, cancels.slice(0, 100)),
    mcpPost(svc.url, agentAuth, cancels.slice(100)),
  ]);
  t.same(
    cancelled.map((c) => c.status),
    [202, 202],
  );
  for (const [i, call] of (await Promise.all(calls)).entries())
    t.match(call.body, { id: i, result: { structuredContent: { ciphertextBase64: String } } });
});
