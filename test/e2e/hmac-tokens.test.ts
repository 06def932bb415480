import { randomUUID } from 'node:crypto';
import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { spawnService } from '../helpers/process.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET, unsignedToken } from '../helpers/tokens.ts';

const ALL = [
  'Create',
  'Get',
  'Activate',
  'Sign',
  'Verify',
  'Encrypt',
  'Decrypt',
  'Rotate',
  'Revoke',
  'Query',
  'Compromise',
  'Destroy',
];
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify({ 'kms-admins': ALL, signers: ['Create', 'Get', 'Sign'] }),
  SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({ auditor: ['Query'] }),
});
t.teardown(() => svc.stop());
const as = (token: string) => new ApiClient(svc.url, { Authorization: `Bearer ${token}` });
const admin = as(await mintToken({ sub: 'alice', svc_groups: ['kms-admins'] }));

t.test('a valid HS256 token is a Human with its groups; X-Svc-User means nothing', async (t) => {
  const created = await admin.post('/v1/keys', { spec: { name: `k-${randomUUID()}`, algorithm: 'AES' } });
  t.equal(created.status, 201);
  const rows = await admin.auditOf(created.body.id);
  t.match(rows[0].principal, { subject: 'alice', kind: 'Human' });
  const devHeader = new ApiClient(svc.url, { 'X-Svc-User': 'alice' });
  t.equal((await devHeader.get(`/v1/keys/${created.body.id}`)).status, 401);
});

t.test('expired, wrongly signed, unsigned and malformed tokens are 401', async (t) => {
  const cases: Array<[string, string]> = [
    [
      await mintToken({ sub: 'alice' }, { iat: Math.floor(Date.now() / 1000) - 3600, ttlSeconds: 60 }),
      'token has expired',
    ],
    [
      await mintToken({ sub: 'alice' }, { secret: 'another-secret-another-secret-another-secret' }),
      'token signature does not verify',
    ],
    [await mintToken({ sub: 'alice' }, { iat: Math.floor(Date.now() / 1000) + 3600 }), 'it was issued in the future'],
    [unsignedToken({ sub: 'alice' }), 'invalid token'],
    ['not.a.jwt', 'invalid token'],
  ];
  for (const [token, message] of cases) {
    const res = await as(token).get('/v1/audit');
    t.equal(res.status, 401);
    t.equal(res.body.error, 'Unauthorized');
    t.match(res.body.message, message);
    t.notMatch(res.body.message, token.slice(0, 20), 'never echoes the token');
  }
});

t.test('a token issued within the allowed clock skew ahead of the node is accepted', async (t) => {
  t.equal(
    (await as(await mintToken({ sub: 'auditor' }, { iat: Math.floor(Date.now() / 1000) + 10 })).get('/v1/audit'))
      .status,
    200,
  );
});

t.test('a revoked jti is refused with a message naming it; tokens without jti still work', async (t) => {
  const jti = '7d1f6a3e-2f59-4c36-9a5e-1b2c3d4e5f60';
  const victim = as(await mintToken({ sub: 'bob', svc_groups: ['signers'] }, { jti }));
  t.equal((await victim.post('/v1/keys', { spec: { name: `x-${randomUUID()}`, algorithm: 'AES' } })).status, 201);
  const revoked = await admin.post('/v1/tokens/revoke', { jti });
  t.same(revoked.body, { jti, revoked: true });
  const after = await victim.post('/v1/keys', { spec: { name: `x-${randomUUID()}`, algorithm: 'AES' } });
  t.equal(after.status, 401);
  t.equal(after.body.message, `token ${jti} has been revoked`);
  const noJti = as(await mintToken({ sub: 'carol', svc_groups: ['signers'] }, { jti: null }));
  t.equal((await noJti.post('/v1/keys', { spec: { name: `x-${randomUUID()}`, algorithm: 'AES' } })).status, 201);
});

t.test('role-based policy: bindings grant operations; everything else is 403, audited and counted', async (t) => {
  const signer = as(await mintToken({ sub: 'bob', svc_groups: ['signers'] }));
  const id = (await signer.post('/v1/keys', { spec: { name: `k-${randomUUID()}`, algorithm: 'EdDSA' } })).body.id;
  const denied = await signer.post(`/v1/keys/${id}/activate`);
  t.equal(denied.status, 403);
  t.equal(denied.body.error, 'PermissionDenied');
  t.match((await admin.auditOf(id)).at(-1), {
    operation: 'Activate',
    outcome: 'PermissionDenied',
    principal: { subject: 'bob' },
  });
  const auditor = as(await mintToken({ sub: 'auditor' }));
  t.equal((await auditor.get('/v1/audit')).status, 200);
  t.equal((await auditor.post('/v1/keys', { spec: { name: `k-${randomUUID()}`, algorithm: 'AES' } })).status, 403);
  const metrics = await (await fetch(`${svc.url}/metrics`)).text();
  t.match(metrics, /svc_keys_op_errors_total\{operation="Activate",code="PermissionDenied"\} \d+/);
});

t.test('agent tokens: issued by Humans only, within rules, bounded by their scopes and their parent', async (t) => {
  const key = (await admin.post('/v1/keys', { spec: { name: 'agent-key', algorithm: 'EdDSA' } })).body.id;
  await admin.post(`/v1/keys/${key}/activate`);
  const issued = await admin.post('/v1/agents/issue', {
    label: 'release signer',
    scopes: ['Sign', 'Get'],
    ttlSeconds: 600,
  });
  t.equal(issued.status, 200);
  t.match(issued.body, { agentId: /^agent-[0-9a-f-]{36}$/, jti: /^[0-9a-f-]{36}$/, jwt: /^ey/ });
  const agent = as(issued.body.jwt);
  t.equal(
    (await agent.post(`/v1/keys/${key}/sign`, { messageBase64: b64('build 42') })).status,
    200,
    'scoped Sign works',
  );
  const enc = await agent.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('x') });
  t.equal(enc.status, 403, 'Encrypt is outside its scopes');
  t.equal(
    (await agent.post('/v1/agents/issue', { label: 'child', scopes: ['Sign'], ttlSeconds: 60 })).status,
    403,
    'agents cannot issue agents',
  );
  t.equal((await agent.get('/v1/audit')).status, 403, 'audit is Human only');

  const bad: Array<[object, string]> = [
    [{ label: ' ', scopes: ['Sign'], ttlSeconds: 60 }, 'InvalidField'],
    [{ label: 'x', scopes: ['Fly'], ttlSeconds: 60 }, 'InvalidField'],
    [{ label: 'x', scopes: ['Sign'], ttlSeconds: 0 }, 'InvalidField'],
    [{ label: 'x', scopes: ['Sign'], ttlSeconds: 86401 }, 'InvalidField'],
    [{ label: 'x', scopes: ['Sign'], ttlSeconds: 60, parent: 'mallory' }, 'InvalidField'],
    [{ label: 'x', scopes: 'Sign', ttlSeconds: 60 }, 'BadRequest'],
  ];
  for (const [body, code] of bad)
    t.equal((await admin.post('/v1/agents/issue', body)).body.error, code, JSON.stringify(body));
  const signer = as(await mintToken({ sub: 'bob', svc_groups: ['signers'] }));
  const beyond = await signer.post('/v1/agents/issue', { label: 'x', scopes: ['Sign', 'Encrypt'], ttlSeconds: 60 });
  t.equal(beyond.status, 403);
  t.match(beyond.body.message, /scopes its parent lacks: Encrypt/);

  // A token minted with the secret whose svc_ops claim more than the parent's bindings: the service never
  // issued it, so the agent registry refuses it outright (issued agents stay bounded by their parent at use).
  const forged = as(
    await mintToken({
      sub: 'agent-x',
      iss: 'svc-kms',
      aud: 'svc-kms',
      svc_kind: 'agent',
      svc_parent: 'bob',
      svc_groups: ['signers'],
      svc_ops: ['Sign', 'Get', 'Encrypt'],
    }),
  );
  const aes = (await admin.post('/v1/keys', { spec: { name: `k-${randomUUID()}`, algorithm: 'AES' } })).body.id;
  await admin.post(`/v1/keys/${aes}/activate`);
  const excess = await forged.post(`/v1/keys/${aes}/encrypt`, { plaintextBase64: b64('x') });
  t.equal(excess.status, 401);
  t.match(excess.body.message, /agent-x is not in the agent registry/);

  const rows = (await admin.get(`/v1/audit?key=agent:${issued.body.agentId}`)).body.records;
  t.match(rows[0], {
    operation: 'Create',
    outcome: 'Success',
    context: { agentId: issued.body.agentId, jti: issued.body.jti, ttlSeconds: '600', scopes: 'Sign,Get' },
  });
  const everything = JSON.stringify((await admin.get('/v1/audit?limit=1000')).body);
  t.notOk(everything.includes(issued.body.jwt), 'the JWT is in no audit record');
  t.notOk(svc.logs.join('\n').includes(issued.body.jwt), 'nor in any log line');
});

t.test('agent tokens must be ones this service issues: iss, aud, parent, jti, at most 24 h', async (t) => {
  const agent = {
    sub: 'agent-z',
    svc_kind: 'agent',
    svc_parent: 'alice',
    svc_groups: ['kms-admins'],
    svc_ops: ['Get', 'Create'],
  };
  const use = async (token: string) =>
    await as(token).post('/v1/keys', { spec: { name: `z-${randomUUID()}`, algorithm: 'AES' } });
  const unissued = await use(await mintToken({ ...agent, iss: 'svc-kms', aud: 'svc-kms' }));
  t.equal(unissued.status, 401, 'a well-formed agent token the service did not issue is refused');
  t.match(unissued.body.message, /is not in the agent registry/);
  const cases: Array<[string, Promise<string>, RegExp]> = [
    ['no iss', mintToken({ ...agent, aud: 'svc-kms' }), /must have iss svc-kms/],
    ['no aud', mintToken({ ...agent, iss: 'svc-kms' }), /must have aud svc-kms/],
    ['another aud', mintToken({ ...agent, iss: 'svc-kms', aud: 'elsewhere' }), /must have aud svc-kms/],
    ['no parent', mintToken({ ...agent, svc_parent: undefined, iss: 'svc-kms', aud: 'svc-kms' }), /no svc_parent/],
    ['no jti', mintToken({ ...agent, iss: 'svc-kms', aud: 'svc-kms' }, { jti: null }), /no jti/],
    [
      '25 h',
      mintToken({ ...agent, iss: 'svc-kms', aud: 'svc-kms' }, { ttlSeconds: 90_000 }),
      /lives longer than 86400 s/,
    ],
    [
      'a 129-character jti',
      mintToken({ ...agent, iss: 'svc-kms', aud: 'svc-kms' }, { jti: 'j'.repeat(129) }),
      /jti must be 1\.\.128 characters/,
    ],
  ];
  for (const [what, token, why] of cases) {
    const res = await use(await token);
    t.equal(res.status, 401, what);
    t.match(res.body.message, why, what);
  }
  t.equal(
    (await use(await mintToken({ sub: 'alice', svc_groups: ['kms-admins'] }, { jti: 'h'.repeat(129) }))).status,
    401,
    'any token with an over-long jti',
  );
  const longJti = await admin.post('/v1/tokens/revoke', { jti: 'x'.repeat(129) });
  t.equal(longJti.body.error, 'InvalidField', 'revoking an over-long jti is 400 InvalidField');
});

t.test('boot refuses a short HMAC secret and unusable role bindings', async (t) => {
  const short = spawnService({
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_AUTH_KIND: 'hmac',
    SVC_AUTH_HMAC_SECRET: 'too-short',
  });
  t.not(await short.exited, 0);
  t.match(short.stderr(), /SVC_AUTH_HMAC_SECRET is 9 bytes; at least 32 are required/);
  const empty = spawnService({ SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', SVC_POLICY_KIND: 'role-based' });
  t.not(await empty.exited, 0);
  t.match(empty.stderr(), /both policy\.roleBindings and policy\.subjectBindings are empty/);
  const unknown = spawnService({
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_ROLE_BINDINGS: '{"ops":["Sign","Juggle"]}',
  });
  t.not(await unknown.exited, 0);
  t.match(unknown.stderr(), /policy\.roleBindings\.ops names unknown operation "Juggle"/);
});

t.test('without a secret, agent issuance is 501 FeatureNotSupported', async (t) => {
  const dev = await startTestService();
  t.teardown(() => dev.stop());
  const res = await dev.client().post('/v1/agents/issue', { label: 'x', scopes: ['Sign'], ttlSeconds: 60 });
  t.equal(res.status, 501);
  t.equal(res.body.error, 'FeatureNotSupported');
});
