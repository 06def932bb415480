import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { startTestService } from '../helpers/service.ts';
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
const as = (url: string, token: string) => new ApiClient(url, { Authorization: `Bearer ${token}` });
const NUL = '\u0000';

t.test(
  'PostgreSQL: a NUL anywhere in a request is 400 InvalidField, stores nothing and is audited as a failure',
  async (t) => {
    const db = await freshDatabase(t, 'postgresql');
    if (!db) return;
    const svc = await startTestService({
      ...db.env,
      SVC_AUTH_KIND: 'hmac',
      SVC_AUTH_HMAC_SECRET: TEST_SECRET,
      SVC_POLICY_KIND: 'role-based',
      // One binding scoped to the caller's own keys, so that the policy reads a key's facts (from the
      // database) before it decides: a NUL id must not get that far either.
      SVC_POLICY_ROLE_BINDINGS: JSON.stringify({ admins: ALL, owners: { operations: ALL, keys: ['owner:self'] } }),
    });
    t.teardown(() => svc.stop());
    const admin = as(svc.url, await mintToken({ sub: 'ops', svc_groups: ['admins'] }));
    const owner = as(svc.url, await mintToken({ sub: 'olga', svc_groups: ['owners'] }));
    const key = await owner.key({ algorithm: 'AES' });

    const attempts: Array<[string, ApiClient, string, string, unknown?]> = [
      [
        'agent label',
        admin,
        'POST',
        '/v1/agents/issue',
        { label: `build${NUL}bot`, scopes: ['Sign'], ttlSeconds: 600 },
      ],
      ['audit filter actor', admin, 'GET', `/v1/audit?actor=${encodeURIComponent(`ops${NUL}`)}`],
      ['audit filter key', admin, 'GET', `/v1/audit?key=${encodeURIComponent(`${NUL}`)}`],
      ['agents filter parent', admin, 'GET', `/v1/agents?parent=${encodeURIComponent(`ops${NUL}`)}`],
      ['key name', owner, 'POST', '/v1/keys', { spec: { name: `nul${NUL}name`, algorithm: 'AES' } }],
      ['path id', owner, 'POST', `/v1/keys/${encodeURIComponent(`${key}${NUL}`)}/rotate`, {}],
      ['path id (GET)', owner, 'GET', `/v1/keys/${encodeURIComponent(NUL)}`],
      ['agent id', admin, 'POST', `/v1/agents/${encodeURIComponent(`a${NUL}`)}/revoke`, {}],
      [
        'nested body string',
        owner,
        'POST',
        `/v1/keys/${key}/encrypt`,
        { plaintextBase64: b64('x'), context: { tenant: `a${NUL}b` } },
      ],
      [
        'body field name',
        owner,
        'POST',
        `/v1/keys/${key}/encrypt`,
        { plaintextBase64: b64('x'), context: { [`t${NUL}`]: 'a' } },
      ],
    ];
    for (const [what, client, method, path, body] of attempts) {
      const res = await client.call(method, path, body);
      t.equal(res.status, 400, `${what}: 400`);
      t.equal(res.body.error, 'InvalidField', `${what}: InvalidField`);
      t.match(res.body.message, /NUL character/, `${what}: the message says why`);
    }

    const subject = await as(svc.url, await mintToken({ sub: `ops${NUL}x`, svc_groups: ['admins'] })).post('/v1/keys', {
      spec: { name: 'via-claim', algorithm: 'AES' },
    });
    t.equal(subject.status, 401, 'a token whose subject holds a NUL is refused');

    t.same((await admin.get('/v1/agents')).body.agents, [], 'no agent was issued');
    t.same((await owner.get(`/v1/keys/${key}`)).body.currentVersion, 1, 'the key was not rotated');
    const records = (await admin.get('/v1/audit?limit=1000')).body.records as Array<{
      operation: string;
      outcome: string;
      principal: { subject: string };
    }>;
    t.notOk(
      records.some((r) => r.operation === 'Create' && r.outcome === 'Success' && r.principal.subject !== 'olga'),
      "no key created but the owner's",
    );
    const failures = records.filter((r) => r.outcome === 'InvalidField');
    t.equal(failures.length, attempts.length, 'every refused call has its failure record');
    t.same(
      svc.logs.filter((l) => /unexpectedly|unhandled/.test(l)),
      [],
      'no request reached an unexpected error',
    );
  },
);
