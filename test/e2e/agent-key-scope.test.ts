import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { mcpClient } from '../helpers/mcp-client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// A key-scoped agent (keys: [...] at issue) may touch only matching keys, on every door, whatever its
// scopes and its parent's rights; agents never enable a key (Human only), and may disable one.
// The risk gate is off: this file is about key patterns, which hold whatever the risk decision.
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_RISK_ENABLED: 'false',
});
t.teardown(() => svc.stop());
const human = new ApiClient(svc.url, {
  Authorization: `Bearer ${await mintToken({ sub: 'alice', svc_kind: 'human' }, { ttlSeconds: 3600 })}`,
});
const mine = await human.key({ algorithm: 'AES', name: 'agent-mine' });
const byName = await human.key({ algorithm: 'AES', name: 'reports-2026' });
const viaAlias = await human.key({ algorithm: 'AES', name: 'aliased' });
const other = await human.key({ algorithm: 'AES', name: 'payroll' });
if ((await human.call('PUT', '/v1/aliases/alias%2Fagent-target', { keyId: viaAlias })).status !== 200)
  throw new Error('alias not created');
const sealedOther = (await human.post(`/v1/keys/${other}/encrypt`, { plaintextBase64: b64('salary') })).body;

const issued = await human.post('/v1/agents/issue', {
  label: 'one-key bot',
  scopes: ['Encrypt', 'Decrypt', 'Get', 'Locate', 'Disable', 'Enable', 'AddAttribute'],
  keys: [`id:${mine}`, 'name:reports-*', 'alias:agent-target'],
  ttlSeconds: 600,
});
if (issued.status !== 200) throw new Error(`issue answered ${issued.status}: ${issued.body.message}`);
const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });

t.test('the agent list shows the patterns', async (t) => {
  const listed = await human.get('/v1/agents');
  const entry = listed.body.agents.find((a: any) => a.agentId === issued.body.agentId);
  t.same(entry.keys, [`id:${mine}`, 'name:reports-*', 'alias:agent-target']);
});

t.test('over REST: matching keys serve, any other key is 403, and the refusal is audited', async (t) => {
  for (const [what, id] of [
    ['id:', mine],
    ['name:', byName],
    ['alias:', viaAlias],
  ] as const) {
    const ok = await agent.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('fine') });
    t.equal(ok.status, 200, `a key matched by ${what} serves`, { body: ok.body });
  }
  const throughAlias = await agent.post('/v1/keys/alias%2Fagent-target/encrypt', { plaintextBase64: b64('x') });
  t.equal(throughAlias.status, 200, 'also when called through the alias');
  for (const [what, call] of [
    ['encrypt', () => agent.post(`/v1/keys/${other}/encrypt`, { plaintextBase64: b64('x') })],
    ['decrypt', () => agent.post(`/v1/keys/${other}/decrypt`, sealedOther)],
    ['get', () => agent.get(`/v1/keys/${other}`)],
    ['tag', () => agent.call('PUT', `/v1/keys/${other}/tags`, { tags: { pwned: 'yes' } })],
    ['disable', () => agent.post(`/v1/keys/${other}/disable`, {})],
    ['alias onto it', () => agent.call('PUT', '/v1/aliases/alias%2Fsneaky', { keyId: other })],
  ] as const) {
    const refused = await call();
    t.equal(refused.status, 403, `${what} on another key: 403`);
    t.match(refused.body.message, /key patterns/, `${what}: the answer says why`);
  }
  const moved = await agent.call('PUT', '/v1/aliases/alias%2Fagent-target', { keyId: other });
  t.equal(moved.status, 403, 'moving its alias onto another key: 403');
  const located = await agent.get('/v1/keys?limit=1000');
  t.same(
    located.body.keys.map((k: any) => k.id).sort(),
    [mine, byName, viaAlias].sort(),
    'Locate answers only the keys it may touch',
  );
  const trail = (await human.get(`/v1/audit?key=${other}&limit=100`)).body.records;
  t.ok(
    trail.some((r: any) => r.principal.subject === issued.body.agentId && r.outcome === 'PermissionDenied'),
    "the refusals are audited on the other key's trail",
  );
  t.same((await human.get(`/v1/keys/${other}`)).body.tags, {}, 'nothing changed on the other key');
});

t.test('over MCP: the same agent is refused on another key', async (t) => {
  const mcp = await mcpClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
  t.teardown(() => mcp.close());
  const ok = await mcp.tool('encrypt', { keyId: mine, plaintextBase64: b64('via mcp') });
  t.notOk(ok.isError, 'its own key serves');
  const viaAliasTool = await mcp.tool('encrypt', { keyId: 'alias/agent-target', plaintextBase64: b64('via mcp') });
  t.notOk(viaAliasTool.isError, 'an alias is a key id on MCP too');
  const refused = await mcp.tool('encrypt', { keyId: other, plaintextBase64: b64('via mcp') });
  t.ok(refused.isError, 'another key is refused');
  t.equal(refused.structuredContent?.error, 'PermissionDenied');
  t.match(refused.structuredContent?.message, /key patterns/);
});

t.test('an agent may disable a key it may touch, never enable it', async (t) => {
  t.equal((await agent.post(`/v1/keys/${mine}/disable`, { reason: 'odd traffic' })).status, 200);
  const enable = await agent.post(`/v1/keys/${mine}/enable`);
  t.equal(enable.status, 403, 'enable is Human only');
  t.equal((await human.post(`/v1/keys/${mine}/enable`)).status, 200, 'the Human enables it');
});

t.test('bad patterns are refused at issue', async (t) => {
  for (const keys of [[], ['id:not-a-uuid'], ['alias:has space'], ['everything'], ['name:']]) {
    const r = await human.post('/v1/agents/issue', { label: 'bad', scopes: ['Encrypt'], keys, ttlSeconds: 60 });
    t.equal(r.status, 400, `${JSON.stringify(keys)}: 400`);
  }
});
