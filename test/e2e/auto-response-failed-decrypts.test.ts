import t from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';
import { until } from '../helpers/until.ts';

const base = { SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET, SVC_JOURNAL_KIND: 'rdb-embedded' };

/**
 * A failed decrypt never costs a key anything (docs/detection.md): an agent with Decrypt but no
 * ciphertext of the key trips RateSpike and is revoked, the key stays Active. A batch whose every item
 * failed answers 200 and is audited Success, yet it used the material no more than its failed items
 * would have one by one; a batch with one item that decrypted did use it.
 */
t.test('an agent whose every decrypt fails, batch or not, is revoked; the key it hammered stays Active', async (t) => {
  const svc = await startTestService(base);
  t.teardown(() => svc.stop());
  const owner = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'owner' })}` });
  const garbage = Buffer.alloc(64, 7).toString('base64');

  /** 95 calls of `body` (or of what `body(key)` gives) by a new Decrypt agent, until the agent is revoked. */
  const hammer = async (label: string, body: (key: string) => Promise<object>) => {
    const key = await owner.key({ name: label, algorithm: 'AES' });
    const call = await body(key);
    const issued = await owner.post('/v1/agents/issue', { label, scopes: ['Decrypt'], ttlSeconds: 600 });
    const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
    const answers = new Set<string>();
    for (let i = 0; i < 95; i++) {
      const r = await agent.post(`/v1/keys/${key}/decrypt`, call);
      answers.add(
        r.status === 200 && r.body.results
          ? `200 ${r.body.results.map((x: any) => x.error ?? 'decrypted').join(',')}`
          : `${r.status} ${r.body.error}`,
      );
    }
    await until(
      async () => (await agent.post(`/v1/keys/${key}/decrypt`, call)).status === 401,
      `the ${label} agent to be revoked`,
    );
    return { key, answers, state: (await owner.get(`/v1/keys/${key}`)).body.state };
  };

  const single = await hammer('single', async () => ({ ciphertextBase64: garbage }));
  t.ok(single.answers.has('400 DecryptionFailed'), 'single calls: DecryptionFailed');
  t.equal(single.state, 'Active', 'single failed decrypts: the agent is revoked, the key stays Active');

  const failed = await hammer('failed-batch', async () => ({
    items: [{ ciphertextBase64: garbage }, { ciphertextBase64: garbage }],
  }));
  t.ok(failed.answers.has('200 DecryptionFailed,DecryptionFailed'), 'batches: 200 with every item DecryptionFailed');
  t.equal(failed.state, 'Active', 'batches of failed decrypts: the key stays Active too');

  const used = await hammer('used-batch', async (key) => {
    const sealed = await owner.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: b64('secret') });
    return { items: [{ ciphertextBase64: sealed.body.ciphertextBase64 }, { ciphertextBase64: garbage }] };
  });
  t.ok(used.answers.has('200 decrypted,DecryptionFailed'), 'batches: one item decrypted, one failed');
  await until(
    async () => (await owner.get(`/v1/keys/${used.key}`)).body.enabled === false,
    'the key whose material the agent used to be disabled',
  );

  const paused = (await owner.get('/v1/audit?actor=svc-system&limit=100')).body.records.filter(
    (r: any) => r.operation === 'Disable' && r.resource.startsWith('key:'),
  );
  t.same(
    paused.map((r: any) => r.resource),
    [`key:${used.key}`],
    'only that key was disabled; disabling the others was not even attempted',
  );
});
