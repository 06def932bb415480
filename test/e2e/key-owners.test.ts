import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { spawnService } from '../helpers/process.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const USE = ['Create', 'Get', 'Activate', 'Sign', 'Verify'];
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify({
    team: { operations: USE, keys: ['owner:self'] },
    readers: { operations: ['Get'], keys: ['name:public-*'] },
    // Names under public-* are claimed by a binding: only a Create grant naming that pattern makes them.
    publishers: { operations: ['Create', 'Activate', 'Get'], keys: ['name:public-*'] },
    destroyers: { operations: ['Destroy'], keys: ['owner:self'] },
    admins: [...USE, 'Query', 'Revoke'],
  }),
  SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({
    'svc-a': { operations: USE, keys: ['owner:self'] },
    'svc-b': { operations: USE, keys: ['owner:self'] },
  }),
});
t.teardown(() => svc.stop());
const as = async (claims: Record<string, unknown>) =>
  new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken(claims)}` });
const bob = await as({ sub: 'bob', svc_groups: ['team', 'publishers'] });
const carol = await as({ sub: 'carol', svc_groups: ['team'] });
const dave = await as({ sub: 'dave', svc_groups: ['readers'] });
const admin = await as({ sub: 'ops', svc_groups: ['admins'] });
const sign = (client: ApiClient, id: string) => client.post(`/v1/keys/${id}/sign`, { messageBase64: b64('m') });

t.test("a key belongs to its creator; owner:self bindings reach only the caller's own keys", async (t) => {
  const bobs = await bob.key({ name: 'bobs', algorithm: 'EdDSA' });
  t.equal((await bob.get(`/v1/keys/${bobs}`)).body.owner, 'bob', 'owner is shown in ManagedKey');
  t.equal((await sign(bob, bobs)).status, 200);
  const refused = await sign(carol, bobs);
  t.equal(refused.status, 403, "carol cannot sign with bob's key");
  t.match(refused.body.message, /carol is not allowed to Sign on this key/);
  const carols = await carol.key({ name: 'carols', algorithm: 'EdDSA' });
  t.equal((await sign(carol, carols)).status, 200, 'but with her own');
  t.equal((await sign(admin, bobs)).status, 200, 'an unscoped binding reaches every key');
});

t.test('name:GLOB bindings; an unknown key is refused like a foreign one (no existence oracle)', async (t) => {
  t.equal(
    (await carol.post('/v1/keys', { spec: { name: 'public-api', algorithm: 'EdDSA' } })).status,
    403,
    'owner:self alone never creates inside a claimed name pattern',
  );
  const pub = await bob.key({ name: 'public-web', algorithm: 'EdDSA' });
  const priv = await bob.key({ name: 'private-db', algorithm: 'EdDSA' });
  t.equal((await dave.get(`/v1/keys/${pub}`)).status, 200);
  t.equal((await dave.get(`/v1/keys/${priv}`)).status, 403);
  const unknown = '00000000-0000-4000-8000-000000000001';
  t.equal(
    (await dave.get(`/v1/keys/${unknown}`)).status,
    403,
    'a caller with scoped bindings only cannot tell unknown from foreign',
  );
  t.equal((await admin.get(`/v1/keys/${unknown}`)).status, 404, 'an unscoped caller gets 404');
  t.equal(
    (await dave.post('/v1/keys', { spec: { name: 'public-new', algorithm: 'AES' } })).status,
    403,
    'readers bind Get only',
  );
});

t.test("an agent is bounded by its parent's keys", async (t) => {
  const bobs = await bob.key({ name: 'agent-target', algorithm: 'EdDSA' });
  const carols = await carol.key({ name: 'not-for-bobs-agent', algorithm: 'EdDSA' });
  const issued = await bob.post('/v1/agents/issue', {
    label: 'signer',
    scopes: ['Sign', 'Create', 'Activate'],
    ttlSeconds: 600,
  });
  t.equal(issued.status, 200, 'a parent with scoped bindings can issue agents for those operations');
  const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
  t.equal((await sign(agent, bobs)).status, 200, "the agent signs with its parent's key");
  const refused = await sign(agent, carols);
  t.equal(refused.status, 403, "but not with anyone else's");
  t.match(refused.body.message, /its parent bob is not allowed to Sign on this key/);
  const made = await agent.post('/v1/keys', { spec: { name: 'by-agent', algorithm: 'EdDSA' } });
  t.equal(made.body.owner, 'bob', "a key an agent creates belongs to the agent's parent");
  const [created] = await admin.auditOf(made.body.id);
  t.match(
    created,
    { operation: 'Create', principal: { subject: issued.body.agentId, kind: 'Agent' }, context: { owner: 'bob' } },
    'the creation row names the agent as actor and bob as owner',
  );
  t.equal((await bob.post(`/v1/keys/${made.body.id}/activate`)).status, 200, 'so the parent can use it');
});

t.test("a bad value on one's own key is 400 and audited on the key, not refused as on no key", async (t) => {
  // The HTTP door refuses a query value that is no integer, a body that is no JSON object or a bad
  // header before the operation's input is read; the key id of the path must still be the call's.
  const erin = await as({ sub: 'erin', svc_groups: ['team', 'destroyers'] });
  const id = await erin.key({ name: 'erins', algorithm: 'EdDSA' }, false);
  t.equal(
    (await erin.call('DELETE', `/v1/keys/${id}?waitingDays=31`)).status,
    400,
    'waitingDays=31 (an integer out of range)',
  );
  for (const bad of ['abc', '1.5', '', '1e1']) {
    const res = await erin.call('DELETE', `/v1/keys/${id}?waitingDays=${bad}`);
    t.match(
      res,
      { status: 400, body: { error: 'InvalidField', message: 'waitingDays must be an integer' } },
      `waitingDays=${bad}`,
    );
  }
  t.match(
    await erin.call('POST', `/v1/keys/${id}/sign`, '{"messageBase64": '),
    { status: 400, body: { error: 'BadRequest' } },
    'a body that is no JSON',
  );
  t.match(
    await erin.call('POST', `/v1/keys/${id}/sign`, { messageBase64: b64('m') }, { 'X-Svc-Model': 'm'.repeat(200) }),
    { status: 400, body: { error: 'InvalidField' } },
    'a refused header',
  );
  t.equal((await erin.get(`/v1/keys/${id}`)).body.state, 'PreActive', 'nothing changed');
  t.equal(
    (await carol.call('DELETE', `/v1/keys/${id}?waitingDays=abc`)).status,
    403,
    "on another's key the call is refused first, as any call there",
  );
  const rows = await admin.auditOf(id);
  t.same(
    rows.filter((r) => r.operation === 'Destroy').map((r) => `${r.principal.subject} ${r.outcome}`),
    ['erin InvalidField', ...Array(4).fill('erin InvalidField'), 'carol PermissionDenied'],
    'every refused DELETE is audited on the key',
  );
  t.same(
    rows.filter((r) => r.operation === 'Sign').map((r) => r.outcome),
    ['BadRequest', 'InvalidField'],
    'and so is every refused sign',
  );
});

t.test("services: owner:self means the service's tenant", async (t) => {
  const a1 = await as({ sub: 'svc-a', svc_kind: 'service', svc_tenant: 't1' });
  const b1 = await as({ sub: 'svc-b', svc_kind: 'service', svc_tenant: 't1' });
  const b2 = await as({ sub: 'svc-b', svc_kind: 'service', svc_tenant: 't2' });
  const id = await a1.key({ name: 'tenant-key', algorithm: 'EdDSA' });
  t.match((await a1.get(`/v1/keys/${id}`)).body, { owner: 'svc-a', tenant: 't1' });
  t.equal((await sign(b1, id)).status, 200, 'another service of the same tenant');
  t.equal((await sign(b2, id)).status, 403, 'a service of another tenant');
});

t.test('boot refuses malformed key patterns, naming each', async (t) => {
  const proc = spawnService({
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_ROLE_BINDINGS: JSON.stringify({
      x: { operations: ['Get'], keys: ['owner:other', 'name:', 'id:nope'] },
      y: { operations: ['Get'] },
    }),
  });
  const code = await proc.exited;
  t.not(code, 0);
  for (const bad of ['owner:other', '"name:"', 'id:nope']) t.match(proc.stderr(), bad.replaceAll('"', ''));
  t.match(proc.stderr(), /policy.roleBindings.y.keys must be a non-empty list/);
});
