import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// The audit's policy.diff names exactly the bindings a new policy version changes. Its entries
// ("+roleBindings.NAME") are separated by spaces and binding names (group and subject names) are the
// operator's text, so a name that is not a plain name is either refused or shown so that it reads as one
// entry. Otherwise whoever may Administer adds one binding whose name reads in the trail as changes never
// made (here: alice's subject binding "changed" and the auditors' binding "removed"), misleading whoever
// reads the trail to learn who may do what.
const ADMINS = ['Create', 'Get', 'Activate', 'Query', 'Administer'];
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_RISK_ENABLED: 'false',
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify({ admins: ADMINS, auditors: ['Query'] }),
  SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({ alice: ['Get'] }),
});
t.teardown(() => svc.stop());
const admin = new ApiClient(svc.url, {
  Authorization: `Bearer ${await mintToken({ sub: 'ops', svc_groups: ['admins'] }, { ttlSeconds: 3600 })}`,
});

t.test("the audit's policy.diff names exactly the bindings that changed", async (t) => {
  const current = await admin.get('/v1/policy');
  const forged = 'x ~subjectBindings.alice -roleBindings.auditors';
  const put = await admin.call(
    'PUT',
    '/v1/policy',
    {
      roleBindings: { ...current.body.roleBindings, [forged]: ['Get'] },
      subjectBindings: current.body.subjectBindings,
    },
    { 'If-Match': current.body.etag },
  );
  if (put.status === 400) return t.pass('a binding name that is not a plain name is refused');
  t.equal(put.status, 200);
  const page = await admin.get('/v1/audit?key=policy&op=Administer&limit=10');
  const diff = page.body.records.find((r: any) => r.context['policy.version'] === '2')?.context['policy.diff'];
  t.ok(diff, 'version 2 is audited');
  t.equal(String(diff).split(' ').length, 1, 'one added binding reads as one entry');
  t.match(diff, /^\+roleBindings\./, 'an added role binding');
  t.notMatch(
    diff,
    /(^| )-roleBindings\.auditors( |$)/,
    'the trail does not read as if the auditors binding was removed',
  );
  t.notMatch(diff, /(^| )~subjectBindings\.alice( |$)/, "nor as if alice's binding changed");
});
