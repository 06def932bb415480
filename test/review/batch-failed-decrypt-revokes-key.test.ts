import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';
import { until } from '../helpers/until.ts';

/**
 * Review of issue 23: docs/detection.md promises that "a failed decrypt never costs a key anything":
 * the auto-responder revokes a key only for an offender that used its material with success. A batch
 * decrypt whose every item failed is audited as one Success record (batch.failed = batch.items), which
 * material-uses.ts counts as a use of the key's material. An agent that has Decrypt but no ciphertext of
 * the key (it cannot decrypt anything) trips RateSpike with garbage batches and the default rules revoke
 * the shared key for everyone.
 */
t.test('an agent whose every decrypt fails cannot get the key revoked, batch or not', async (t) => {
  const svc = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET, SVC_JOURNAL_KIND: 'rdb-embedded' });
  t.teardown(() => svc.stop());
  const owner = new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken({ sub: 'owner' })}` });
  const garbage = Buffer.alloc(64, 7).toString('base64');

  const run = async (label: string, body: object) => {
    const key = await owner.key({ name: label, algorithm: 'AES' });
    const issued = await owner.post('/v1/agents/issue', { label, scopes: ['Decrypt'], ttlSeconds: 600 });
    const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });
    const statuses = new Set<number>();
    for (let i = 0; i < 95; i++) statuses.add((await agent.post(`/v1/keys/${key}/decrypt`, body)).status);
    await until(async () => (await agent.post(`/v1/keys/${key}/decrypt`, body)).status === 401, 'the agent to be revoked');
    return { key, statuses };
  };

  const single = await run('single', { ciphertextBase64: garbage });
  t.same([...single.statuses], [400, 401].filter((s) => single.statuses.has(s)), 'single calls: DecryptionFailed');
  t.equal((await owner.get(`/v1/keys/${single.key}`)).body.state, 'Active', 'single failed decrypts: the agent is revoked, the key stays Active');

  const batch = await run('batch', { items: [{ ciphertextBase64: garbage }] });
  t.ok(batch.statuses.has(200), 'batches: 200 with every item DecryptionFailed');
  t.equal((await owner.get(`/v1/keys/${batch.key}`)).body.state, 'Active', 'batches of failed decrypts: the key must stay Active too');
});
