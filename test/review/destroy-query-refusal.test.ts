import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/**
 * Review of issue 23: DELETE /v1/keys/{id}?waitingDays=<not an integer> is refused by the HTTP door
 * before the path's id is put in the input, so the pipeline authorizes an input-less call: a caller whose
 * Destroy binding is key-scoped (owner:self) gets 403 "not allowed to Destroy" on its own key, and the
 * audit record names `invalid:<hash>` instead of the key. waitingDays=31 on the same key is 400.
 */
t.test("a bad waitingDays on one's own key is 400 InvalidField, audited on the key", async (t) => {
  const svc = await startTestService({
    SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET, SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_ROLE_BINDINGS: JSON.stringify({ team: { operations: ['Create', 'Get', 'Destroy'], keys: ['owner:self'] }, auditors: ['Query'] }),
  });
  t.teardown(() => svc.stop());
  const bob = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'bob', svc_groups: ['team'] })}` });
  const id = await bob.key({ name: 'bobs', algorithm: 'AES' }, false);
  const outOfRange = await bob.call('DELETE', `/v1/keys/${id}?waitingDays=31`);
  t.equal(outOfRange.status, 400, 'waitingDays=31: 400');
  for (const bad of ['abc', '1.5', '', '1e1']) {
    const res = await bob.call('DELETE', `/v1/keys/${id}?waitingDays=${bad}`);
    t.equal(res.status, 400, `waitingDays=${bad}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  t.equal((await bob.get(`/v1/keys/${id}`)).body.state, 'PreActive', 'nothing changed');
  const auditor = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'ops', svc_groups: ['auditors'] })}` });
  const rows = await auditor.get('/v1/audit?op=Destroy&limit=10');
  t.equal(rows.status, 200, JSON.stringify(rows.body).slice(0, 200));
  const resources = (rows.body.records ?? []).map((r: { resource: string }) => r.resource);
  t.ok(resources.length === 5 && resources.every((r: string) => r === id), `every refused DELETE is audited on the key: ${resources.join(', ')}`);
});
