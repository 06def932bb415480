import t, { type Test } from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const ALL = [
  'Create',
  'Get',
  'Activate',
  'Revoke',
  'Destroy',
  'Sign',
  'Verify',
  'Encrypt',
  'Decrypt',
  'Rotate',
  'Compromise',
  'Query',
];
const POLICY = {
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify({
    'kms-admins': ALL,
    'agent-admins': { operations: ['Query', 'Revoke'], agents: ['*'] },
    signers: ['Create', 'Get', 'Activate', 'Sign'],
  }),
};
const as = (url: string, token: string) => new ApiClient(url, { Authorization: `Bearer ${token}` });

/** The kill switch on one journal backend: list, revoke, cascade, and the registry across a restart. */
async function killSwitch(t: Test, env: Record<string, string>): Promise<void> {
  const dir = tempDir();
  let svc = await startTestService({ ...POLICY, ...env }, { dir });
  const bobToken = await mintToken({ sub: 'bob', svc_groups: ['signers'] }, { ttlSeconds: 3600 });
  const bob = as(svc.url, bobToken);
  const carol = as(svc.url, await mintToken({ sub: 'carol', svc_groups: ['signers'] }));
  const admin = as(svc.url, await mintToken({ sub: 'ops', svc_groups: ['kms-admins', 'agent-admins'] }));
  const keyAdmin = as(svc.url, await mintToken({ sub: 'keys-only', svc_groups: ['kms-admins'] }));
  const key = (await bob.post('/v1/keys', { spec: { name: 'bobs', algorithm: 'EdDSA' } })).body.id;
  await bob.post(`/v1/keys/${key}/activate`);
  const issue = async (client: ApiClient, label: string) =>
    (await client.post('/v1/agents/issue', { label, scopes: ['Sign'], ttlSeconds: 600 })).body;
  const first = await issue(bob, 'first');
  const second = await issue(bob, 'second');
  const carols = await issue(carol, 'carols');
  const third = await issue(bob, 'third');

  const listed = (await bob.get('/v1/agents')).body.agents;
  t.same(
    listed.map((a: any) => a.agentId),
    [third.agentId, second.agentId, first.agentId],
    'bob sees his own agents, newest first',
  );
  t.match(listed[2], {
    agentId: first.agentId,
    jti: first.jti,
    parent: 'bob',
    purpose: 'first',
    scopes: ['Sign'],
    expiresAt: first.expiresAt,
    revoked: false,
  });
  t.notOk(JSON.stringify(listed).includes(first.jwt), 'the token itself is never listed');
  t.equal((await bob.get('/v1/agents?parent=carol')).status, 403, "another parent's agents need Query on agent:*");
  t.same(
    (await admin.get('/v1/agents?parent=carol')).body.agents.map((a: any) => a.agentId),
    [carols.agentId],
    'an admin filters by parent',
  );
  t.equal((await admin.get('/v1/agents')).body.agents.length, 4, 'an admin sees every agent');
  t.equal((await as(svc.url, first.jwt).get('/v1/agents')).status, 403, 'agents cannot list agents');
  t.equal(
    (await keyAdmin.get('/v1/agents?parent=carol')).status,
    403,
    "a plain Query binding does not show others' agents",
  );
  t.same((await keyAdmin.get('/v1/agents')).body.agents, [], 'nor their jtis: it lists only its own (none)');

  const agent = as(svc.url, first.jwt);
  const sign = () => agent.post(`/v1/keys/${key}/sign`, { messageBase64: b64('m') });
  t.equal((await sign()).status, 200, 'the agent works');
  t.equal((await carol.post(`/v1/agents/${first.agentId}/revoke`)).status, 403, "carol cannot stop bob's agent");
  t.equal(
    (await keyAdmin.post(`/v1/agents/${first.agentId}/revoke`)).status,
    403,
    'nor can a plain Revoke binding (it is about keys)',
  );
  t.equal((await bob.post('/v1/agents/agent-00000000-0000-4000-8000-000000000000/revoke')).body.error, 'NotFound');
  const revoked = await bob.post(`/v1/agents/${first.agentId}/revoke`);
  t.match(revoked.body, { agentId: first.agentId, revoked: true, revokedAt: /^\d{4}-\d\d-\d\dT/ });
  t.equal((await sign()).status, 401, 'the revoked agent is refused at once');
  t.equal(
    (await bob.post(`/v1/agents/${first.agentId}/revoke`)).body.revokedAt,
    revoked.body.revokedAt,
    'revoking again keeps the first time',
  );
  t.equal(
    (await admin.post(`/v1/agents/${carols.agentId}/revoke`)).status,
    200,
    'a Human allowed Revoke on agents stops any agent',
  );
  t.equal(
    (await as(svc.url, second.jwt).post(`/v1/keys/${key}/sign`, { messageBase64: b64('m') })).status,
    200,
    'the other agent keeps working',
  );

  // The jti of any agent is in the audit trail (its issue record), which a plain Query binding reads; a
  // plain Revoke binding still cannot stop the agent through POST /v1/tokens/revoke with it.
  const thirdJti = (await keyAdmin.get(`/v1/audit?key=agent:${third.agentId}&limit=10`)).body.records.find(
    (r: any) => r.operation === 'Create',
  ).context.jti;
  t.equal(thirdJti, third.jti);
  t.equal(
    (await keyAdmin.post('/v1/tokens/revoke', { jti: thirdJti })).status,
    403,
    "a plain Revoke binding cannot revoke another's agent by its jti",
  );
  const useThird = () => as(svc.url, third.jwt).post(`/v1/keys/${key}/sign`, { messageBase64: b64('m') });
  t.equal((await useThird()).status, 200, 'so the agent still works');
  t.equal(
    (await admin.post('/v1/tokens/revoke', { jti: third.jti })).status,
    200,
    'a caller allowed Revoke on agents may',
  );
  t.equal((await useThird()).status, 401, 'and that stops it');
  t.equal(
    (await admin.get(`/v1/agents?parent=bob`)).body.agents.find((a: any) => a.agentId === third.agentId).revoked,
    true,
    'in the registry',
  );

  // Revocation cascades: bob's own token revoked, his remaining agent stops too.
  const bobJti = JSON.parse(Buffer.from(bobToken.split('.')[1]!, 'base64url').toString()).jti;
  t.equal((await admin.post('/v1/tokens/revoke', { jti: bobJti })).status, 200);
  const orphan = await as(svc.url, second.jwt).post(`/v1/keys/${key}/sign`, { messageBase64: b64('m') });
  t.equal(orphan.status, 401, "an agent stops with its parent's token");
  t.match(orphan.body.message, /token .* of agent .* was revoked at/);
  t.equal((await bob.get('/v1/agents')).status, 401, "bob's own token is refused too");
  t.equal(
    (await admin.get('/v1/agents?parent=bob')).body.agents.find((a: any) => a.agentId === second.agentId).revoked,
    true,
    'the registry records the cascade',
  );

  const rows = (await admin.get(`/v1/audit?key=agent:${first.agentId}&limit=10`)).body.records;
  t.ok(
    rows.some((r: any) => r.operation === 'Revoke' && r.outcome === 'Success' && r.principal.subject === 'bob'),
    'the kill switch is audited',
  );

  if (env.SVC_JOURNAL_KIND !== 'in-memory') {
    await svc.stop();
    svc = await startTestService({ ...POLICY, ...env }, { dir });
    const again = (
      await as(svc.url, await mintToken({ sub: 'ops', svc_groups: ['kms-admins', 'agent-admins'] })).get('/v1/agents')
    ).body.agents;
    t.same(
      again.map((a: any) => [a.agentId, a.revoked]),
      [
        [third.agentId, true],
        [carols.agentId, true],
        [second.agentId, true],
        [first.agentId, true],
      ],
      'the registry survives a restart',
    );
    // The default revocation list is in memory and empty now; the registry still stops killed agents.
    const afterRestart = await as(svc.url, first.jwt).post(`/v1/keys/${key}/sign`, { messageBase64: b64('m') });
    t.equal(afterRestart.status, 401, 'a kill-switched agent stays stopped after a restart');
    t.match(afterRestart.body.message, /was revoked at/);
    t.equal((await as(svc.url, carols.jwt).get('/v1/agents')).status, 401, 'so does every other revoked agent');
    t.equal((await as(svc.url, third.jwt).get('/v1/agents')).status, 401, 'the one revoked by its jti included');
    t.equal(
      (await as(svc.url, second.jwt).get('/v1/agents')).status,
      401,
      "and the one stopped with its parent's token, although the list forgot that token",
    );
  }
  await svc.stop();
}

t.test('agent registry on SQLite', (t) => killSwitch(t, { SVC_JOURNAL_KIND: 'rdb-embedded' }));
t.test('agent registry on the in-memory journal', (t) => killSwitch(t, { SVC_JOURNAL_KIND: 'in-memory' }));
t.test('agent registry on PostgreSQL', async (t) => {
  const db = await freshDatabase(t, 'postgresql');
  if (db) await killSwitch(t, db.env);
});

t.test(
  'the registry is the authority: no revocation list needed, no unregistered agent, no agent outliving its parent',
  async (t) => {
    const svc = await startTestService({ ...POLICY, SVC_JOURNAL_KIND: 'rdb-embedded', SVC_REVOCATION_KIND: 'none' });
    t.teardown(() => svc.stop());
    const now = Math.floor(Date.now() / 1000);
    const bob = as(svc.url, await mintToken({ sub: 'bob', svc_groups: ['signers'] }, { ttlSeconds: 120, iat: now }));
    const key = await bob.key({ algorithm: 'EdDSA' });
    const issued = (await bob.post('/v1/agents/issue', { label: 'long', scopes: ['Sign'], ttlSeconds: 86_400 })).body;
    t.ok(
      Date.parse(issued.expiresAt) <= (now + 120) * 1000,
      `asked for a day, the agent ends with bob's token (${issued.expiresAt})`,
    );
    t.equal(
      JSON.parse(Buffer.from(issued.jwt.split('.')[1], 'base64url').toString()).exp,
      now + 120,
      "the token's exp says so too",
    );
    t.equal((await bob.get('/v1/agents')).body.agents[0].expiresAt, issued.expiresAt, 'and the registry');

    const agent = as(svc.url, issued.jwt);
    const sign = () => agent.post(`/v1/keys/${key}/sign`, { messageBase64: b64('m') });
    t.equal((await sign()).status, 200);
    const revoked = await bob.post(`/v1/agents/${issued.agentId}/revoke`);
    t.equal(revoked.status, 200, 'the kill switch works with revocation.kind none');
    t.equal((await sign()).status, 401, 'and stops the agent at once');

    // Someone holding the signing secret mints an agent the service never issued, for bob or for anyone.
    const minted = await mintToken({
      sub: 'agent-00000000-0000-4000-8000-00000000beef',
      svc_kind: 'agent',
      iss: 'svc-kms',
      aud: 'svc-kms',
      svc_parent: 'bob',
      svc_ops: ['Sign'],
      svc_groups: ['signers'],
    });
    const refused = await as(svc.url, minted).post(`/v1/keys/${key}/sign`, { messageBase64: b64('m') });
    t.equal(refused.status, 401, 'a well-signed agent token the registry does not hold is refused');
    t.match(refused.body.message, /is not in the agent registry/);
  },
);

t.test(
  'two nodes on one PostgreSQL: an agent killed on node A is refused by node B at its very next call',
  async (t) => {
    const db = await freshDatabase(t, 'postgresql');
    if (!db) return;
    const a = await startTestService({ ...POLICY, ...db.env });
    t.teardown(() => a.stop());
    const b = await startTestService({ ...POLICY, ...db.env });
    t.teardown(() => b.stop());
    const bobToken = await mintToken({ sub: 'bob', svc_groups: ['signers'] });
    const key = await as(a.url, bobToken).key({ algorithm: 'EdDSA' });
    const issued = (
      await as(a.url, bobToken).post('/v1/agents/issue', { label: 'roaming', scopes: ['Sign'], ttlSeconds: 600 })
    ).body;
    const onB = as(b.url, issued.jwt);
    t.equal(
      (await onB.post(`/v1/keys/${key}/sign`, { messageBase64: b64('m') })).status,
      200,
      'B accepts the agent A issued',
    );
    t.equal((await as(a.url, bobToken).post(`/v1/agents/${issued.agentId}/revoke`)).status, 200);
    t.equal((await onB.post(`/v1/keys/${key}/sign`, { messageBase64: b64('m') })).status, 401, 'B refuses it at once');
  },
);
