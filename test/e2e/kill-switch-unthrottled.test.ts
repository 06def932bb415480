import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { mcpClient } from '../helpers/mcp-client.ts';
import { startTestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// A rogue agent's 1,000-item batch took 1,000 units from its own bucket and from its parent's: the
// parent's revoke then answered 429 for as long as the debt lasted (about 90 s at the shipped limits).
// Stopping an agent and revoking a token are never refused by a rate limit or the risk decision.
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_RATE_LIMIT_RPS: '10',
  SVC_RATE_LIMIT_BURST: '20',
});
t.teardown(() => svc.stop());
const tokenOf = (sub: string) => mintToken({ sub, jti: `${sub}-token` }, { ttlSeconds: 3600 });
const human = async (sub: string) => new ApiClient(svc.url, { Authorization: `Bearer ${await tokenOf(sub)}` });
const key = await (await human('owner')).key({ algorithm: 'AES' });

/** An agent of the parent's that has just spent 1,000 units, putting both buckets deep in debt. */
async function rogue(parent: ApiClient, label: string) {
  const issued = (await parent.post('/v1/agents/issue', { label, scopes: ['Encrypt'], ttlSeconds: 600 })).body;
  const bot = new ApiClient(svc.url, { Authorization: `Bearer ${issued.jwt}` });
  // A call bigger than the burst passes only on full buckets: the rogue retries until alice's has refilled.
  const items = Array.from({ length: 1000 }, () => ({ plaintextBase64: b64('x') }));
  let flood = await bot.post(`/v1/keys/${key}/encrypt`, { items });
  await until(
    async () => flood.status === 200 || (flood = await bot.post(`/v1/keys/${key}/encrypt`, { items })).status === 200,
    'the flood to pass',
  );
  return { issued, bot, flood };
}

t.test(
  "after a rogue agent's flood the parent is throttled, yet its kill switch answers at once, over REST and MCP",
  async (t) => {
    const alice = await human('alice');
    const { issued, bot, flood } = await rogue(alice, 'rogue-rest');
    t.equal(flood.status, 200, 'the flood passed (a full bucket lets one big call through, into debt)');
    const throttled = await alice.get(`/v1/keys/${key}`);
    t.equal(throttled.status, 429, "the parent's ordinary calls are throttled by the debt");
    const revoked = await alice.post(`/v1/agents/${issued.agentId}/revoke`);
    t.equal(revoked.status, 200, 'the kill switch is not');
    t.equal(
      (await bot.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') })).status,
      401,
      'and the agent is stopped',
    );

    const bob = await human('bob');
    const second = await rogue(bob, 'rogue-mcp');
    t.equal((await bob.get(`/v1/keys/${key}`)).status, 429, 'bob is throttled too');
    const mcp = await mcpClient(`${svc.url}/mcp`, { Authorization: `Bearer ${await tokenOf('bob')}` });
    t.teardown(() => mcp.close());
    const viaMcp = await mcp.tool('revoke_agent', { agentId: second.issued.agentId });
    t.notOk(viaMcp.isError, `revoke_agent over MCP: ${JSON.stringify(viaMcp.structuredContent)}`);
    t.equal((await second.bot.get(`/v1/keys/${key}`)).status, 401);
  },
);

t.test('revoking a token by its jti is never throttled either', async (t) => {
  const carol = await human('carol');
  const { issued, bot } = await rogue(carol, 'rogue-jti');
  t.equal((await carol.get(`/v1/keys/${key}`)).status, 429);
  t.equal((await carol.post('/v1/tokens/revoke', { jti: issued.jti })).status, 200);
  t.equal((await bot.get(`/v1/keys/${key}`)).status, 401);
  const rows = (
    await new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'auditor' })}` }).get(
      '/v1/audit?op=Revoke&limit=50',
    )
  ).body.records;
  const carols = rows.filter((r: any) => r.principal.subject === 'carol');
  t.ok(carols.length > 0 && carols.every((r: any) => r.outcome === 'Success'), 'every revoke carol made succeeded');
});
