import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';
import { until } from '../helpers/until.ts';

// One node on the in-memory journal (the API's answers); live-policy-nodes.test.ts runs several nodes on
// the SQL journals.
const ADMINS = ['Create', 'Get', 'Activate', 'Query', 'Administer'];
const ENV = {
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify({ admins: ADMINS }),
  // A Service bound to Administer is still refused: changing the policy is a Human's act.
  SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({ 'svc-deploy': ['Administer', 'Query'] }),
};
const svc = await startTestService(ENV);
t.teardown(() => svc.stop());
const as = async (claims: Record<string, unknown>) =>
  new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken(claims)}` });
const admin = await as({ sub: 'ops', svc_groups: ['admins'] });
const bob = await as({ sub: 'bob', svc_groups: ['readers'] });
const service = await as({ sub: 'svc-deploy', svc_kind: 'service' });

const policy = () => admin.get('/v1/policy');
const put = (client: ApiClient, document: unknown, etag?: string) =>
  client.call('PUT', '/v1/policy', document, etag === undefined ? {} : { 'If-Match': etag });
const seeded = {
  roleBindings: { admins: ADMINS },
  subjectBindings: { 'svc-deploy': ['Administer', 'Query'] },
};
const withReaders = { ...seeded, roleBindings: { ...seeded.roleBindings, readers: ['Get'] } };

t.test(
  'GET /v1/policy: the configured bindings as version 1, with their ETag in the body and the header',
  async (t) => {
    const res = await policy();
    t.equal(res.status, 200);
    t.match(res.body, { version: 1, ...seeded });
    t.match(res.body.etag, /^"1-[0-9a-f]{16}"$/);
    t.equal(res.headers.get('etag'), res.body.etag);
    t.equal((await bob.get('/v1/policy')).status, 403, 'reading it needs Query');
  },
);

t.test('PUT without If-Match, or with a stale one: 412, nothing changed', async (t) => {
  const missing = await put(admin, withReaders);
  t.equal(missing.status, 412);
  t.equal(missing.body.error, 'PreconditionFailed');
  t.match(missing.body.message, /If-Match is missing/);
  const stale = await put(admin, withReaders, '"1-0000000000000000"');
  t.equal(stale.status, 412);
  t.match(stale.body.message, /If-Match does not name the latest version \(1, ETag "1-[0-9a-f]{16}"\)/);
  t.equal((await policy()).body.version, 1);
});

t.test('PUT with bad bindings: 400 naming every bad entry, nothing applied', async (t) => {
  const { etag } = (await policy()).body;
  const bad = {
    roleBindings: {
      admins: ADMINS,
      readers: ['Get'],
      flyers: ['Fly'],
      scoped: { operations: ['Sign'], keys: ['nope:x'] },
    },
    subjectBindings: { carol: 'Get' },
  };
  const res = await put(admin, bad, etag);
  t.equal(res.status, 400);
  t.equal(res.body.error, 'InvalidField');
  t.match(res.body.message, /nothing changed, 3 problem\(s\)/);
  t.match(res.body.message, /policy\.roleBindings\.flyers names unknown operation "Fly"/);
  t.match(res.body.message, /policy\.roleBindings\.scoped: key pattern "nope:x"/);
  t.match(res.body.message, /policy\.subjectBindings\.carol must be a list/);
  t.equal((await policy()).body.version, 1, 'no version written');
  const key = await admin.key({ algorithm: 'AES' });
  t.equal((await bob.get(`/v1/keys/${key}`)).status, 403, 'the good binding of the refused document is not applied');
  const lockout = await put(admin, { roleBindings: { readers: ['Get'] }, subjectBindings: {} }, etag);
  t.equal(lockout.status, 400, 'a version nobody could change again is refused');
  t.match(lockout.body.message, /no binding grants Administer/);
});

t.test('PUT with the current ETag: the next version, obeyed by this node at once', async (t) => {
  const key = await admin.key({ algorithm: 'AES' });
  t.equal((await bob.get(`/v1/keys/${key}`)).status, 403);
  const before = (await policy()).body;
  const res = await put(admin, withReaders, before.etag);
  t.equal(res.status, 200);
  t.match(res.body, { version: 2, ...withReaders });
  t.equal(res.headers.get('etag'), res.body.etag);
  t.not(res.body.etag, before.etag);
  t.equal((await bob.get(`/v1/keys/${key}`)).status, 200, 'bob reads the key on the next call');
  const again = await put(admin, seeded, before.etag);
  t.equal(again.status, 412, "the old ETag is stale now: a second writer cannot overwrite the first's change");
  t.equal((await policy()).body.etag, res.body.etag);
});

t.test('a Service or an Agent may not change the policy, whatever it is bound to', async (t) => {
  const { etag } = (await policy()).body;
  const bySvc = await put(service, seeded, etag);
  t.equal(bySvc.status, 403);
  t.match(bySvc.body.message, /human principals only; Service callers are refused/);
  const issued = await admin.post('/v1/agents/issue', { label: 'policy bot', scopes: ['Administer'], ttlSeconds: 600 });
  t.equal(issued.status, 200, 'an admin may issue an agent scoped for Administer');
  const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
  const byAgent = await put(agent, seeded, etag);
  t.equal(byAgent.status, 403);
  t.match(byAgent.body.message, /Agent callers are refused/);
  t.equal((await policy()).body.etag, etag, 'nothing changed');
});

t.test('a 5 MB document is refused with 413 and changes nothing', async (t) => {
  const { etag, version } = (await policy()).body;
  const subjectBindings = Object.fromEntries(
    Array.from({ length: 50_000 }, (_, i) => [`subject-${i}-${'x'.repeat(64)}`, ['Get', 'Sign', 'Verify']]),
  );
  const document = { roleBindings: seeded.roleBindings, subjectBindings };
  const body = JSON.stringify(document);
  t.ok(body.length > 5_000_000, `a document of ${body.length} bytes`);
  const res = await put(admin, body, etag);
  t.equal(res.status, 413);
  t.equal(res.body.error, 'PayloadTooLarge');
  t.match(res.body.message, /larger than the configured limit \(http\.maxBodyBytes: 1048576 bytes\)/);
  t.same((await policy()).body.version, version, 'no version written');
});

t.test('with http.maxBodyBytes raised, a policy document over 1 MiB is still 413, from the policy', async (t) => {
  const big = await startTestService({ ...ENV, SVC_HTTP_MAX_BODY_BYTES: String(8 * 1024 * 1024) });
  t.teardown(() => big.stop());
  const ops = new ApiClient(big.url, {
    Authorization: `Bearer ${await mintToken({ sub: 'ops', svc_groups: ['admins'] })}`,
  });
  const { etag } = (await ops.get('/v1/policy')).body;
  const subjectBindings = Object.fromEntries(
    Array.from({ length: 50_000 }, (_, i) => [`subject-${i}-${'x'.repeat(64)}`, ['Get', 'Sign', 'Verify']]),
  );
  const res = await put(ops, { roleBindings: seeded.roleBindings, subjectBindings }, etag);
  t.equal(res.status, 413);
  t.match(res.body.message, /the policy document is \d+ bytes; at most 1048576 are stored\. Nothing changed/);
  t.equal((await ops.get('/v1/policy')).body.version, 1);
});

t.test('every version is audited: Administer on policy, with its number and what it changed', async (t) => {
  let records: any[] = [];
  // Version 1 is the system's, relayed from the journal's outbox, which the relay may hold for its grace period.
  await until(
    async () => {
      const page = await admin.get('/v1/audit?key=policy&op=Administer&limit=100');
      records = (page.body.records as any[]).filter((r) => r.outcome === 'Success').reverse();
      return records.length === 2;
    },
    'the audit records of versions 1 and 2',
    20_000,
  );
  t.match(records[0], {
    principal: { subject: 'svc-system', kind: 'Service' },
    resource: 'policy',
    context: {
      'policy.version': '1',
      'policy.diff': '+roleBindings.admins +subjectBindings.svc-deploy',
      'policy.source': 'configuration',
    },
  });
  t.match(records[1], {
    principal: { subject: 'ops', kind: 'Human' },
    resource: 'policy',
    context: { 'policy.version': '2', 'policy.diff': '+roleBindings.readers', door: 'http' },
  });
  const refused = (await admin.get('/v1/audit?key=policy&op=Administer&limit=100')).body.records
    .map((r: any) => r.outcome)
    .filter((o: string) => o !== 'Success');
  for (const outcome of ['PreconditionFailed', 'InvalidField', 'PermissionDenied', 'PayloadTooLarge'])
    t.ok(refused.includes(outcome), `a refused PUT is audited too (${outcome})`);
});

t.test('with the dev policy there is no policy to read or change: 409 saying role-based is needed', async (t) => {
  const dev = await startTestService();
  t.teardown(() => dev.stop());
  const alice = dev.client();
  for (const res of [
    await alice.get('/v1/policy'),
    await alice.call('PUT', '/v1/policy', seeded, { 'If-Match': '"1"' }),
  ]) {
    t.equal(res.status, 409);
    t.equal(res.body.error, 'IllegalOperation');
    t.match(res.body.message, /only with role-based policy \(policy\.kind role-based\)/);
  }
});
