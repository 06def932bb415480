import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';
import { until } from '../helpers/until.ts';

const base = { SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET, SVC_JOURNAL_KIND: 'rdb-embedded' };
const human = (url: string, token: string) => new ApiClient(url, { Authorization: `Bearer ${token}` });

t.test(
  'rate spike: 95 signs by an agent it was allowed to make revoke the agent and disable the key once, as svc-system; a Human enables it again',
  async (t) => {
    const svc = await startTestService(base);
    t.teardown(() => svc.stop());
    const alice = human(svc.url, await mintToken({ sub: 'alice' }));
    const key = await alice.key({ algorithm: 'EdDSA' });
    const issued = await alice.post('/v1/agents/issue', { label: 'signer', scopes: ['Sign', 'Get'], ttlSeconds: 600 });
    const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
    for (let i = 0; i < 95; i++) await agent.post(`/v1/keys/${key}/sign`, { messageBase64: b64(`m${i}`) });
    await until(async () => (await alice.get(`/v1/keys/${key}`)).body.enabled === false, 'the key to be disabled');
    const next = await agent.post(`/v1/keys/${key}/sign`, { messageBase64: b64('again') });
    t.equal(next.status, 401, 'the agent itself is revoked');
    t.match((await alice.get('/v1/agents')).body.agents[0], { agentId: issued.body.agentId, revoked: true });
    const agentRows = (await alice.get(`/v1/audit?key=agent:${issued.body.agentId}&limit=100`)).body.records;
    t.match(
      agentRows.find((r: any) => r.context['auto.response.rule'] === 'RateSpike:High:RevokeAgent'),
      {
        principal: { subject: 'svc-system' },
        operation: 'Revoke',
        outcome: /action=RevokeAgent\) Success agent revoked$/,
        context: { door: 'internal' },
      },
    );

    const rows = (await alice.get(`/v1/audit?key=key:${key}&limit=100`)).body.records;
    const revokes = rows.filter((r: any) => r.context['auto.response.rule'] === 'RateSpike:High:Disable');
    t.equal(revokes.length, 1);
    t.match(revokes[0], {
      principal: { subject: 'svc-system', kind: 'Service' },
      operation: 'Disable',
      resource: `key:${key}`,
      outcome: /^AnomalyAlert\(detector=RateSpike, severity=High, rec=[0-9a-f-]{36}, action=Disable\) Success/,
      context: {
        'auto.response.actor': issued.body.agentId,
        'auto.response.detectorMsg': /requests in 60 s/,
        door: 'internal',
      },
    });
    t.match(
      rows.find((r: any) => r.context['auto.response.rule'] === 'RateSpike:Medium:Alert'),
      { context: { door: 'internal' } },
      'the Medium crossing was an Alert, written by the service itself',
    );
    t.ok(
      rows.filter((r: any) => r.principal.subject !== 'svc-system').every((r: any) => r.context.door === 'http'),
      "the agent's own calls came through REST",
    );
    const paused = (await alice.get(`/v1/keys/${key}`)).body;
    t.match(paused, { state: 'Active', enabled: false }, 'the key keeps its state: disabled, not deactivated');
    t.match(paused.disabledReason, /auto-response to RateSpike \(High\)/, 'and says why');
    t.equal((await alice.post(`/v1/keys/${key}/sign`, { messageBase64: b64('owner') })).status, 409);
    t.equal((await alice.post(`/v1/keys/${key}/enable`)).status, 200, 'the owner, a Human, enables it');
    const signed = await alice.post(`/v1/keys/${key}/sign`, { messageBase64: b64('owner') });
    t.equal(signed.status, 200, 'and the key serves its owner again; the agent stays revoked');
  },
);

t.test(
  'a powerless agent hammering a victim key is cut off; the key stays Active and its owner keeps signing',
  async (t) => {
    const svc = await startTestService(base);
    t.teardown(() => svc.stop());
    const owner = human(svc.url, await mintToken({ sub: 'owner' }));
    const victim = await owner.key({ algorithm: 'EdDSA' });
    const mallory = human(svc.url, await mintToken({ sub: 'mallory' }));
    const issued = await mallory.post('/v1/agents/issue', { label: 'powerless', scopes: [], ttlSeconds: 600 });
    const attacker = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
    const statuses = new Set<number>();
    for (let i = 0; i < 120; i++)
      statuses.add((await attacker.post(`/v1/keys/${victim}/sign`, { messageBase64: b64(`x${i}`) })).status);
    t.ok(statuses.has(403), 'its calls are refused');
    await until(
      async () => (await attacker.post(`/v1/keys/${victim}/sign`, { messageBase64: b64('x') })).status === 401,
      'the attacking agent to be revoked',
    );
    t.equal((await owner.get(`/v1/keys/${victim}`)).body.state, 'Active', 'the victim key is untouched');
    t.equal(
      (await owner.post(`/v1/keys/${victim}/sign`, { messageBase64: b64('still mine') })).status,
      200,
      'its owner keeps signing',
    );
    const rows = (await owner.get('/v1/audit?actor=svc-system&limit=100')).body.records;
    t.same(
      rows.filter((r: any) => r.operation === 'Disable' && r.resource === `key:${victim}`),
      [],
      'no key revocation was even attempted',
    );
    t.ok(
      rows.some((r: any) => r.resource === `agent:${issued.body.agentId}` && /Success agent revoked$/.test(r.outcome)),
      'the agent revocation is audited',
    );
  },
);

t.test(
  'honey key: an agent is caught at the first touch; the key is disabled ' +
    'only when the agent used its material; a human is not reported',
  async (t) => {
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
    t.ok(
      (await alice.auditOf(honey)).some((r) => r.principal.subject === 'alice' && r.operation === 'Get'),
      'but an audit row',
    );

    const issue = async (label: string) =>
      (await alice.post('/v1/agents/issue', { label, scopes: ['Get', 'Encrypt'], ttlSeconds: 600 })).body;
    const reader = await issue('curious');
    const readerClient = new ApiClient(svc.url, { Authorization: `Bearer ${reader.jwt}` });
    await readerClient.get(`/v1/keys/${honey}`);
    await until(
      async () => (await readerClient.get(`/v1/keys/${honey}`)).status === 401,
      'the reading agent to be revoked',
    );
    const readerRows = (await alice.get(`/v1/audit?key=agent:${reader.agentId}`)).body.records;
    t.match(
      readerRows.find((r: any) => r.context['auto.response.rule'] === 'HoneyKey:High:RevokeAgent'),
      { principal: { subject: 'svc-system' }, outcome: /Success agent revoked$/ },
    );
    t.same(
      (await responses()).filter((r: any) => r.operation === 'Disable'),
      [],
      'a read of the honey key does not revoke it',
    );
    t.equal((await alice.get(`/v1/keys/${honey}`)).body.state, 'Active');

    const user = await issue('encrypting');
    const userClient = new ApiClient(svc.url, { Authorization: `Bearer ${user.jwt}` });
    t.equal((await userClient.post(`/v1/keys/${honey}/encrypt`, { plaintextBase64: b64('taken') })).status, 200);
    await until(
      async () => (await alice.get(`/v1/keys/${honey}`)).body.enabled === false,
      'the honey key to be disabled',
    );
    t.match(
      (await responses()).find((r: any) => r.context['auto.response.rule'] === 'HoneyKey:High:Disable'),
      {
        principal: { subject: 'svc-system' },
        outcome: /^AnomalyAlert\(detector=HoneyKey, severity=High, .*action=Disable\) Success/,
        context: { 'auto.response.actor': user.agentId },
      },
    );
    await until(
      async () => (await userClient.get(`/v1/keys/${honey}`)).status === 401,
      'the encrypting agent to be revoked',
    );
  },
);

t.test(
  "a read-only agent's 90 GETs of another user's key: the agent is cut " +
    'off, the key stays Active and its owner keeps signing',
  async (t) => {
    const svc = await startTestService(base);
    t.teardown(() => svc.stop());
    const owner = human(svc.url, await mintToken({ sub: 'owner' }));
    const victim = await owner.key({ algorithm: 'EdDSA' });
    const mallory = human(svc.url, await mintToken({ sub: 'mallory' }));
    const issued = await mallory.post('/v1/agents/issue', { label: 'reader', scopes: ['Get'], ttlSeconds: 600 });
    const reader = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
    const statuses = new Set<number>();
    for (let i = 0; i < 90; i++) statuses.add((await reader.get(`/v1/keys/${victim}`)).status);
    t.ok(statuses.has(200), 'its reads were allowed');
    await until(async () => (await reader.get(`/v1/keys/${victim}`)).status === 401, 'the reading agent to be revoked');
    const rows = (await owner.get('/v1/audit?actor=svc-system&limit=100')).body.records;
    t.ok(
      rows.some(
        (r: any) =>
          r.context['auto.response.rule'] === 'RateSpike:High:RevokeAgent' && /Success agent revoked$/.test(r.outcome),
      ),
      'the agent is revoked for its rate spike',
    );
    t.same(
      rows.filter((r: any) => r.operation === 'Disable' && r.resource === `key:${victim}`),
      [],
      'no key revocation was even attempted',
    );
    t.equal((await owner.get(`/v1/keys/${victim}`)).body.state, 'Active', 'the key it read is untouched');
    t.equal(
      (await owner.post(`/v1/keys/${victim}/sign`, { messageBase64: b64('still mine') })).status,
      200,
      'its owner keeps signing',
    );
  },
);

t.test(
  "an agent verifying fast with another user's public signing key is cut " +
    'off; the key stays Active; verifying with an HMAC key (its secret) ' +
    'still revokes it',
  async (t) => {
    const svc = await startTestService(base);
    t.teardown(() => svc.stop());
    const owner = human(svc.url, await mintToken({ sub: 'owner' }));
    const mallory = human(svc.url, await mintToken({ sub: 'mallory' }));
    const burst = async (key: string) => {
      const signature = (await owner.post(`/v1/keys/${key}/sign`, { messageBase64: b64('signed by its owner') })).body
        .signatureBase64 as string;
      const issued = await mallory.post('/v1/agents/issue', { label: 'verifier', scopes: ['Verify'], ttlSeconds: 600 });
      const verifier = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
      const answers: number[] = [];
      for (let i = 0; i < 95; i++)
        answers.push(
          (
            await verifier.post(`/v1/keys/${key}/verify`, {
              messageBase64: b64('signed by its owner'),
              signatureBase64: signature,
            })
          ).status,
        );
      t.ok(
        answers.filter((s) => s === 200).length >= 85 && answers.every((s) => s === 200 || s === 401),
        'its verifications were allowed (until it was revoked)',
      );
      await until(
        async () =>
          (await verifier.post(`/v1/keys/${key}/verify`, { messageBase64: b64('x'), signatureBase64: signature }))
            .status === 401,
        'the verifying agent to be revoked',
      );
    };

    const signing = await owner.key({ algorithm: 'EdDSA' });
    await burst(signing);
    const rows = (await owner.get('/v1/audit?actor=svc-system&limit=100')).body.records;
    t.same(
      rows.filter((r: any) => r.operation === 'Disable' && r.resource === `key:${signing}`),
      [],
      "no revocation of the public key's key was even attempted",
    );
    t.equal((await owner.get(`/v1/keys/${signing}`)).body.state, 'Active', 'the key is untouched');
    t.equal(
      (await owner.post(`/v1/keys/${signing}/sign`, { messageBase64: b64('still mine') })).status,
      200,
      'its owner keeps signing',
    );

    const mac = await owner.key({ algorithm: 'HMAC' });
    await burst(mac);
    await until(
      async () => (await owner.get(`/v1/keys/${mac}`)).body.enabled === false,
      'the HMAC key, whose secret each verification used, to be disabled',
    );
  },
);

t.test(
  "a read-only user's agent sending wrong MACs to another user's HMAC key " +
    'is cut off; only a valid answer uses the key, so the key stays Active',
  async (t) => {
    const svc = await startTestService(base);
    t.teardown(() => svc.stop());
    const owner = human(svc.url, await mintToken({ sub: 'owner' }));
    const mallory = human(svc.url, await mintToken({ sub: 'mallory' }));
    const mac = await owner.key({ algorithm: 'HMAC' });
    const garbage = (i: number) => ({
      messageBase64: b64(`ledger line ${i}`),
      signatureBase64: Buffer.alloc(32, i).toString('base64'),
    });
    for (const batched of [false, true]) {
      const issued = await mallory.post('/v1/agents/issue', {
        label: batched ? 'batch-guesser' : 'guesser',
        scopes: ['Verify'],
        ttlSeconds: 600,
      });
      const guesser = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
      const send = (i: number) =>
        guesser.post(`/v1/keys/${mac}/verify`, batched ? { items: [garbage(i), garbage(i + 1)] } : garbage(i));
      const answers: any[] = [];
      for (let i = 0; i < 95; i++) answers.push(await send(i));
      t.ok(
        answers.filter((a) => a.status === 200).length >= 85,
        `${batched ? 'batches' : 'single calls'}: answered until the agent was cut off`,
      );
      t.ok(
        answers
          .filter((a) => a.status === 200)
          .every((a) => (batched ? a.body.results.every((r: any) => r.valid === false) : a.body.valid === false)),
        'every MAC was wrong',
      );
      await until(async () => (await send(0)).status === 401, 'the guessing agent to be revoked');
    }
    const rows = (await owner.get('/v1/audit?actor=svc-system&limit=100')).body.records;
    t.same(
      rows.filter((r: any) => r.operation === 'Disable' && r.resource === `key:${mac}`),
      [],
      'no revocation of the HMAC key was attempted',
    );
    t.equal((await owner.get(`/v1/keys/${mac}`)).body.state, 'Active', 'the key stays Active');
    const signed = await owner.post(`/v1/keys/${mac}/sign`, { messageBase64: b64('mine') });
    t.equal(
      (
        await owner.post(`/v1/keys/${mac}/verify`, {
          messageBase64: b64('mine'),
          signatureBase64: signed.body.signatureBase64,
        })
      ).body.valid,
      true,
      'and its owner keeps using it',
    );
  },
);

t.test(
  'an agent that encrypted with a key, then trips a detector by reading ' +
    'it, gets the key disabled: the use was in the window',
  async (t) => {
    const svc = await startTestService(base);
    t.teardown(() => svc.stop());
    const alice = human(svc.url, await mintToken({ sub: 'alice' }));
    const key = await alice.key({ algorithm: 'AES' });
    const issued = await alice.post('/v1/agents/issue', { label: 'user', scopes: ['Get', 'Encrypt'], ttlSeconds: 600 });
    const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
    t.equal((await agent.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('used') })).status, 200);
    for (let i = 0; i < 89; i++) await agent.get(`/v1/keys/${key}`);
    await until(async () => (await alice.get(`/v1/keys/${key}`)).body.enabled === false, 'the key to be disabled');
    const rows = (await alice.get(`/v1/audit?key=key:${key}&limit=100`)).body.records;
    t.equal(
      rows.filter((r: any) => r.context['auto.response.rule'] === 'RateSpike:High:Disable').length,
      1,
      'one key revocation, by the rate-spike rule',
    );
    await until(async () => (await agent.get(`/v1/keys/${key}`)).status === 401, 'the agent to be revoked');
  },
);

t.test('a malformed honey key id fails the boot', async (t) => {
  await t.rejects(
    startTestService({ SVC_HONEY_KEYS: 'not-a-uuid' }),
    /SVC_HONEY_KEYS holds malformed key ids: not-a-uuid/,
  );
});
