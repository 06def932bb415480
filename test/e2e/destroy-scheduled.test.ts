import t, { type Test } from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { ManualClock, startTestService, type TestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';
import { until } from '../helpers/until.ts';

const DAY = 86_400_000;
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
  'Wrap',
  'Unwrap',
  'Rotate',
  'Compromise',
  'Query',
];
const POLICY = {
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify({ 'kms-admins': ALL }),
  SVC_KEYS_DESTROY_CHECK_SECONDS: '1',
  // The risk decision would refuse an agent's repeated destroys; these tests are about the waiting period.
  SVC_RISK_ENABLED: 'false',
};
const as = (svc: TestService, token: string) => new ApiClient(svc.url, { Authorization: `Bearer ${token}` });

/**
 * A service whose clock the test moves, and its callers: a Human, a Service and an agent of the Human, all allowed
 * Destroy.
 */
async function setUp(t: Test, env: Record<string, string> = {}) {
  const clock = new ManualClock(new Date());
  const svc = await startTestService({ ...POLICY, ...env }, { clock });
  t.teardown(() => svc.stop());
  const human = as(svc, await mintToken({ sub: 'ops', svc_groups: ['kms-admins'] }, { ttlSeconds: 3600 }));
  const service = as(
    svc,
    await mintToken({ sub: 'svc-batch', svc_kind: 'service', svc_groups: ['kms-admins'] }, { ttlSeconds: 3600 }),
  );
  const issued = (
    await human.post('/v1/agents/issue', {
      label: 'cleaner',
      scopes: ['Get', 'Destroy', 'Revoke', 'Encrypt', 'Decrypt'],
      ttlSeconds: 3600,
    })
  ).body;
  const agent = as(svc, issued.jwt);
  /** An AES key of the Human's, revoked (so it may be destroyed), with a ciphertext made before. */
  const revokedKey = async () => {
    const id = await human.key({ algorithm: 'AES' });
    const enc = await human.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('kept until the end') });
    t.equal((await human.post(`/v1/keys/${id}/revoke`, {})).status, 200);
    return { id, ciphertextBase64: enc.body.ciphertextBase64 as string };
  };
  return { svc, clock, human, service, agent, revokedKey };
}

t.test('waiting days: per call, per deployment, and the agent minimum', async (t) => {
  const { clock, human, service, agent, revokedKey } = await setUp(t, {
    SVC_KEYS_DESTROY_WAITING_DAYS: '2',
    SVC_KEYS_AGENT_DESTROY_WAITING_DAYS: '5',
  });
  const now = () => clock.now().getTime();

  const a = await revokedKey();
  const scheduled = await human.call('DELETE', `/v1/keys/${a.id}?waitingDays=3`);
  t.equal(scheduled.status, 202, 'a waiting period answers 202 Accepted');
  t.same(Object.keys(scheduled.body).sort(), ['destroyAt', 'id', 'state']);
  t.match(scheduled.body, { id: a.id, state: 'Deactivated' });
  t.equal(Date.parse(scheduled.body.destroyAt), now() + 3 * DAY, 'the call names three days');

  const b = await revokedKey();
  t.equal(
    Date.parse((await service.call('DELETE', `/v1/keys/${b.id}`)).body.destroyAt),
    now() + 2 * DAY,
    "no waitingDays: the deployment's default",
  );

  const c = await revokedKey();
  const immediate = await human.call('DELETE', `/v1/keys/${c.id}?waitingDays=0`);
  t.equal(immediate.status, 200, 'waitingDays=0 destroys at once');
  t.match(immediate.body, { id: c.id, state: 'Destroyed', erasure: 'complete' });

  const d = await revokedKey();
  const byAgent = await agent.call('DELETE', `/v1/keys/${d.id}?waitingDays=0`);
  t.equal(byAgent.status, 202, "an agent's DELETE waits whatever it asks");
  t.equal(Date.parse(byAgent.body.destroyAt), now() + 5 * DAY, 'at least the agent minimum');
  const e = await revokedKey();
  const longer = await agent.call('DELETE', `/v1/keys/${e.id}?waitingDays=9`);
  t.equal(
    Date.parse(longer.body.destroyAt),
    now() + 9 * DAY,
    `and longer when it asks for longer ${JSON.stringify(longer.body)}`,
  );
  const rows = await human.auditOf(d.id);
  t.match(rows.at(-1), {
    operation: 'Destroy',
    principal: { kind: 'Agent' },
    outcome: 'Success',
    context: { waitingDays: '5', requestedWaitingDays: '0', destroyAt: byAgent.body.destroyAt },
  });

  for (const bad of ['31', '-1', '1.5', 'soon', '']) {
    const f = await revokedKey();
    const res = await human.call('DELETE', `/v1/keys/${f.id}?waitingDays=${encodeURIComponent(bad)}`);
    t.equal(res.status, 400, `waitingDays=${bad} is refused`);
    t.match(res.body, { error: /InvalidField|BadRequest/, message: /waitingDays/ });
    t.same((await human.get(`/v1/keys/${f.id}`)).body.destroyAt, undefined, 'and changes nothing');
  }
});

t.test(
  'while scheduled the key keeps its state, refuses every cryptographic call, and GET shows destroyAt',
  async (t) => {
    const { human, revokedKey } = await setUp(t);
    const { id, ciphertextBase64 } = await revokedKey();
    t.equal(
      (await human.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64 })).status,
      200,
      'a Deactivated key decrypts before',
    );
    const { destroyAt } = (await human.call('DELETE', `/v1/keys/${id}?waitingDays=7`)).body;
    const key = (await human.get(`/v1/keys/${id}`)).body;
    t.match(key, { state: 'Deactivated', destroyAt });
    const refused = await human.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64 });
    t.equal(refused.status, 409);
    t.match(refused.body, {
      error: 'IllegalOperation',
      message: new RegExp(`scheduled for destruction at ${destroyAt}`),
    });
    const sig = await human.key({ algorithm: 'EdDSA' });
    await human.post(`/v1/keys/${sig}/revoke`, {});
    await human.call('DELETE', `/v1/keys/${sig}?waitingDays=1`);
    for (const [path, body] of [
      [`/v1/keys/${sig}/verify`, { messageBase64: b64('m'), signatureBase64: b64('s') }],
      [`/v1/keys/${id}/unwrap`, { wrappedDekBase64: b64('x'.repeat(24)) }],
    ] as const) {
      const res = await human.post(path, body);
      t.equal(res.status, 409, path);
      t.match(res.body.message, /scheduled for destruction/);
    }
    t.match(
      (await human.get(`/v1/keys/${sig}/public-key`)).body,
      { error: 'IllegalOperation', message: /scheduled for destruction/ },
      'nor its public key',
    );
    const fresh = await human.key({ algorithm: 'AES' }, false);
    await human.call('DELETE', `/v1/keys/${fresh}?waitingDays=1`);
    t.match(
      (await human.post(`/v1/keys/${fresh}/activate`)).body,
      { error: 'IllegalOperation', message: /scheduled for destruction/ },
      'a PreActive key cannot be activated meanwhile',
    );

    // A second DELETE never moves the date, earlier or later, and never destroys at once.
    for (const query of ['', '?waitingDays=0', '?waitingDays=30']) {
      const again = await human.call('DELETE', `/v1/keys/${id}${query}`);
      t.equal(again.status, 409, `DELETE${query} again is refused`);
      t.match(again.body.message, new RegExp(`already scheduled for destruction at ${destroyAt}`));
    }
    t.equal((await human.get(`/v1/keys/${id}`)).body.destroyAt, destroyAt, 'the date is the first one');
    t.equal(
      (await human.post(`/v1/keys/${id}/compromise`, { reason: 'found on a laptop' })).status,
      200,
      'it may still be marked compromised',
    );
    t.match((await human.get(`/v1/keys/${id}`)).body, { state: 'Compromised', destroyAt }, 'which keeps the schedule');
  },
);

t.test('cancel: Humans only; the key serves again', async (t) => {
  const { human, service, agent, revokedKey } = await setUp(t);
  const { id, ciphertextBase64 } = await revokedKey();
  const { destroyAt } = (await agent.call('DELETE', `/v1/keys/${id}`)).body;
  for (const [who, client] of [
    ['an agent', agent],
    ['a service', service],
  ] as const) {
    const res = await client.post(`/v1/keys/${id}/cancel-destroy`);
    t.equal(res.status, 403, `${who} may not cancel`);
    t.equal(res.body.error, 'PermissionDenied');
  }
  const cancelled = await human.post(`/v1/keys/${id}/cancel-destroy`);
  t.equal(cancelled.status, 200);
  t.same(cancelled.body, { id, state: 'Deactivated', cancelledDestroyAt: destroyAt });
  t.equal((await human.get(`/v1/keys/${id}`)).body.destroyAt, undefined, 'GET shows no date');
  t.equal((await human.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64 })).status, 200, 'the key decrypts again');
  t.match(
    (await human.post(`/v1/keys/${id}/cancel-destroy`)).body,
    { error: 'IllegalOperation', message: /not scheduled for destruction/ },
    'nothing left to cancel',
  );
  const rows = await human.auditOf(id);
  t.same(
    rows.filter((r) => r.resource === id && r.operation === 'Destroy').map((r) => [r.principal.kind, r.outcome]),
    [
      ['Agent', 'Success'],
      ['Agent', 'PermissionDenied'],
      ['Service', 'PermissionDenied'],
      ['Human', 'Success'],
      ['Human', 'IllegalOperation'],
    ],
  );
});

t.test('at destroyAt the service destroys the key as svc-system, with the same erase, audited once', async (t) => {
  const { clock, human, revokedKey } = await setUp(t);
  const { id, ciphertextBase64 } = await revokedKey();
  const other = await revokedKey();
  const { destroyAt } = (await human.call('DELETE', `/v1/keys/${id}?waitingDays=1`)).body;
  await human.call('DELETE', `/v1/keys/${other.id}?waitingDays=2`);
  clock.advance(DAY - 1000);
  t.equal((await human.get(`/v1/keys/${id}`)).body.state, 'Deactivated', 'not before its date');
  clock.advance(1000);
  await until(
    async () => (await human.get(`/v1/keys/${id}`)).body.state === 'Destroyed',
    'the key is destroyed once due',
  );
  const key = (await human.get(`/v1/keys/${id}`)).body;
  t.equal(key.destroyAt, undefined);
  t.ok(key.destroyedAt >= destroyAt);
  t.match((await human.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64 })).body, {
    error: 'IllegalOperation',
    message: /Destroyed/,
  });
  t.equal((await human.get(`/v1/keys/${other.id}`)).body.state, 'Deactivated', 'a key due later is kept');
  await until(
    async () => (await human.auditOf(id)).some((r) => r.principal.subject === 'svc-system'),
    'the destruction is audited',
  );
  const system = (await human.auditOf(id)).filter((r) => r.principal.subject === 'svc-system');
  t.equal(system.length, 1, 'exactly one record');
  t.match(system[0], {
    operation: 'Destroy',
    outcome: 'Success',
    context: { door: 'internal', 'destroy.trigger': 'scheduled', destroyAt },
  });
  t.equal(
    (await human.call('DELETE', `/v1/keys/${id}`)).status,
    409,
    'a destroyed key whose erase is complete cannot be destroyed again',
  );
});

t.test(
  'an agent cannot trim, cancel, or hurry a destruction; a token without Destroy cannot schedule one',
  async (t) => {
    const { svc, human, agent, revokedKey } = await setUp(t);
    const id = await human.key({ algorithm: 'AES' });
    await human.post(`/v1/keys/${id}/rotate`, {});
    const trim = await agent.post(`/v1/keys/${id}/trim`, { minVersion: 2 });
    t.equal(trim.status, 403);
    t.match(trim.body.message, /agents may not trim/);
    t.equal((await human.get(`/v1/keys/${id}`)).body.minVersion, undefined, 'nothing was trimmed');
    const waiting = await revokedKey();
    const { destroyAt } = (await human.call('DELETE', `/v1/keys/${waiting.id}?waitingDays=30`)).body;
    for (const query of ['?waitingDays=0', '?waitingDays=7', '']) {
      const hurried = await agent.call('DELETE', `/v1/keys/${waiting.id}${query}`);
      t.equal(hurried.status, 409, `an agent's DELETE${query} on a key a Human scheduled is refused`);
    }
    t.equal((await human.get(`/v1/keys/${waiting.id}`)).body.destroyAt, destroyAt, "the Human's date stands");
    const reader = (await human.post('/v1/agents/issue', { label: 'reader', scopes: ['Get'], ttlSeconds: 600 })).body;
    const k = await revokedKey();
    t.equal(
      (await as(svc, reader.jwt).call('DELETE', `/v1/keys/${k.id}?waitingDays=30`)).status,
      403,
      'no Destroy scope: refused',
    );
    t.equal((await human.get(`/v1/keys/${k.id}`)).body.destroyAt, undefined);
  },
);

t.test('a waiting period beyond 30 days in the configuration stops the boot, naming the variable', async (t) => {
  for (const name of ['SVC_KEYS_DESTROY_WAITING_DAYS', 'SVC_KEYS_AGENT_DESTROY_WAITING_DAYS']) {
    await t.rejects(
      startTestService({ [name]: '31' }),
      { message: new RegExp(`${name}\\) is 31; it must be 0\\.\\.30 days`) },
      name,
    );
  }
});
