import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { mcpClient } from '../helpers/mcp-client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// An agent's DELETE waits seven days and trim is refused to agents, so that no agent ends a key at once;
// Compromise did exactly that. And an agent allowed Rotate could turn its owner's rotation policy off.
const bindings = {
  owners: ['Create', 'Get', 'Activate', 'Rotate', 'Compromise', 'Destroy', 'Encrypt', 'AddAttribute', 'Query'],
  rotators: ['Get', 'Rotate'],
};
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify(bindings),
});
t.teardown(() => svc.stop());
const ownerToken = await mintToken({ sub: 'owner', svc_groups: ['owners'] }, { ttlSeconds: 3600 });
const owner = new ApiClient(svc.url, { Authorization: `Bearer ${ownerToken}` });
const agentOf = async (scopes: string[]) => {
  const issued = (await owner.post('/v1/agents/issue', { label: 'helper', scopes, ttlSeconds: 600 })).body;
  return { issued, api: new ApiClient(svc.url, { Authorization: `Bearer ${issued.jwt}` }) };
};

t.test('an agent never compromises a key, whatever its scopes, over REST and MCP; its Human may', async (t) => {
  const key = await owner.key({ algorithm: 'AES' });
  const { issued, api } = await agentOf(['Get', 'Compromise', 'Destroy']);
  const res = await api.post(`/v1/keys/${key}/compromise`, { reason: 'I think it leaked' });
  t.equal(res.status, 403);
  t.match(res.body.message, /refused to agents whatever their scopes: a compromise ends the key at once and for good/);
  const mcp = await mcpClient(`${svc.url}/mcp`, { Authorization: `Bearer ${issued.jwt}` });
  t.teardown(() => mcp.close());
  const tools = (await mcp.listTools()).tools.map((tool) => tool.name);
  t.notOk(tools.includes('compromise_key'), 'compromise_key is not among its tools');
  t.ok(tools.includes('destroy_key'), 'destroy_key (which waits for an agent) still is');
  t.equal((await owner.get(`/v1/keys/${key}`)).body.state, 'Active', 'the key lives');
  t.equal((await owner.post(`/v1/keys/${key}/compromise`, { reason: 'confirmed' })).status, 200, 'its Human decides');
});

t.test(
  'Rotate makes a version; changing the rotation policy needs AddAttribute, for agents and Humans alike',
  async (t) => {
    const key = await owner.key({ algorithm: 'AES' });
    t.equal(
      (await owner.post(`/v1/keys/${key}/rotate`, { policy: 'TimeBased:7days' })).status,
      200,
      'the owner sets a schedule',
    );
    const { api } = await agentOf(['Get', 'Rotate']);
    const off = await api.post(`/v1/keys/${key}/rotate`, { policy: 'Manual' });
    t.equal(off.status, 403, 'an agent with Rotate cannot turn the schedule off');
    t.match(off.body.message, /may rotate but not change the rotation policy .*AddAttribute/);
    const rotated = await api.post(`/v1/keys/${key}/rotate`, {});
    t.equal(rotated.status, 200, 'it may still rotate');
    const got = (await owner.get(`/v1/keys/${key}`)).body;
    t.equal(got.rotationPolicy, 'TimeBased:7days', 'the schedule stands');
    t.equal(got.currentVersion, 3, 'two rotations made versions; the refused one made none');
    const rotator = new ApiClient(svc.url, {
      Authorization: `Bearer ${await mintToken({ sub: 'rotator', svc_groups: ['rotators'] })}`,
    });
    t.equal(
      (await rotator.post(`/v1/keys/${key}/rotate`, { policy: 'OpCountBased:1' })).status,
      403,
      'a Human bound to Rotate alone is refused the policy too',
    );
    const refused = (await owner.get(`/v1/audit?key=${key}&op=Rotate&limit=20`)).body.records.filter(
      (r: any) => r.outcome === 'PermissionDenied',
    );
    t.same(
      refused.map((r: any) => r.context.policy).sort(),
      ['Manual', 'OpCountBased:1'],
      'each refusal is audited with the policy it asked for',
    );
    t.equal(
      (await owner.post(`/v1/keys/${key}/rotate`, { policy: 'Manual', reason: 'owner changed it' })).status,
      200,
      'the owner, with AddAttribute, may',
    );
  },
);
