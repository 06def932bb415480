import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

const base = { SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET, SVC_JOURNAL_KIND: 'rdb-embedded' };
const human = (url: string, token: string) => new ApiClient(url, { Authorization: `Bearer ${token}` });

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

t.test('rate spike: 95 signs by an agent revoke the key once, as svc-system, and its next sign is 409', async (t) => {
  const svc = await startTestService(base);
  t.teardown(() => svc.stop());
  const alice = human(svc.url, await mintToken({ sub: 'alice' }));
  const key = await alice.key({ algorithm: 'EdDSA' });
  const issued = await alice.post('/v1/agents/issue', { label: 'signer', scopes: ['Sign', 'Get'], ttlSeconds: 600 });
  const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
  for (let i = 0; i < 95; i++) await agent.post(`/v1/keys/${key}/sign`, { messageBase64: b64(`m${i}`) });
  await until(async () => (await alice.get(`/v1/keys/${key}`)).body.state === 'Deactivated', 'the key to be revoked');
  const next = await agent.post(`/v1/keys/${key}/sign`, { messageBase64: b64('again') });
  t.equal(next.status, 409);
  t.match(next.body.message, /Deactivated/);

  const rows = (await alice.get(`/v1/audit?key=key:${key}&limit=100`)).body.records;
  const revokes = rows.filter((r: any) => r.context['auto.response.rule'] === 'RateSpike:High:Revoke');
  t.equal(revokes.length, 1);
  t.match(revokes[0], {
    principal: { subject: 'svc-system', kind: 'Service' },
    operation: 'Revoke',
    resource: `key:${key}`,
    outcome: /^AnomalyAlert\(detector=RateSpike, severity=High, rec=[0-9a-f-]{36}, action=Revoke\) Success/,
    context: { 'auto.response.actor': issued.body.agentId, 'auto.response.detectorMsg': /requests in 60 s/ },
  });
  t.ok(rows.some((r: any) => r.context['auto.response.rule'] === 'RateSpike:Medium:Alert'), 'the Medium crossing was an Alert');

  for (let i = 0; i < 95; i++) await agent.post(`/v1/keys/${key}/sign`, { messageBase64: b64(`burst2-${i}`) });
  const after = (await alice.get(`/v1/audit?key=key:${key}&limit=100`)).body.records;
  t.equal(after.filter((r: any) => r.context['auto.response.rule'] === 'RateSpike:High:Revoke').length, 1, 'no second Revoke within the cooldown');
});

t.test('honey key: an agent is caught at the first touch; a human is audited but not reported', async (t) => {
  const dir = tempDir();
  const first = await startTestService(base, { dir });
  const adminToken = await mintToken({ sub: 'alice' });
  const honey = await human(first.url, adminToken).key({ algorithm: 'AES' });
  await first.stop();

  const svc = await startTestService({ ...base, SVC_HONEY_KEYS: honey }, { dir });
  t.teardown(() => svc.stop());
  const alice = human(svc.url, adminToken);
  t.equal((await alice.get(`/v1/keys/${honey}`)).status, 200);
  const responses = async () => (await alice.get(`/v1/audit?key=key:${honey}`)).body.records;
  t.same(await responses(), [], 'a Human touching it: no recommendation');
  t.ok((await alice.auditOf(honey)).some((r) => r.principal.subject === 'alice' && r.operation === 'Get'), 'but an audit row');

  const issued = await alice.post('/v1/agents/issue', { label: 'curious', scopes: ['Get', 'Encrypt'], ttlSeconds: 600 });
  const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
  await agent.get(`/v1/keys/${honey}`);
  await until(async () => (await responses()).length > 0, 'the honey-key response');
  const [row] = await responses();
  t.match(row, { principal: { subject: 'svc-system' }, outcome: /^AnomalyAlert\(detector=HoneyKey, severity=High, .*action=Revoke\) Success/, context: { 'auto.response.rule': 'HoneyKey:High:Revoke', 'auto.response.actor': issued.body.agentId } });
  t.equal((await alice.get(`/v1/keys/${honey}`)).body.state, 'Deactivated');
});

t.test('a malformed honey key id fails the boot', async (t) => {
  await t.rejects(startTestService({ SVC_HONEY_KEYS: 'not-a-uuid' }), /SVC_HONEY_KEYS holds malformed key ids: not-a-uuid/);
});
