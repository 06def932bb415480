import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// An agent scoped to some keys locates only among those keys: keys of its parent outside its patterns are
// not just left off the page, they leave no trace in the answer (no nextCursor saying "there are some", no
// cursor carrying such a key's creation time). Otherwise an agent trusted with one key learns, by asking,
// whether keys it may not touch carry a tag (customer:acme) or a name.
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_RISK_ENABLED: 'false',
});
t.teardown(() => svc.stop());
const human = new ApiClient(svc.url, {
  Authorization: `Bearer ${await mintToken({ sub: 'alice', svc_kind: 'human' }, { ttlSeconds: 3600 })}`,
});
const mine = await human.key({ algorithm: 'AES', name: 'bot-key' });
const hidden: string[] = [];
for (let i = 0; i < 4; i++) hidden.push(await human.key({ algorithm: 'AES', tags: { customer: 'acme' } }));
const issued = await human.post('/v1/agents/issue', {
  label: 'one-key bot',
  scopes: ['Get', 'Locate'],
  keys: [`id:${mine}`],
  ttlSeconds: 600,
});
if (issued.status !== 200) throw new Error(`issue: ${issued.status} ${JSON.stringify(issued.body)}`);
const agent = new ApiClient(svc.url, { Authorization: `Bearer ${issued.body.jwt}` });

t.test('the agent locates the key it is scoped to', async (t) => {
  const found = await agent.get('/v1/keys?name=bot-key');
  t.equal(found.status, 200);
  t.same(
    found.body.keys.map((k: any) => k.id),
    [mine],
    'its own key is found',
  );
});

t.test('Locate by a tag only keys outside the agent carry answers as a tag nobody carries', async (t) => {
  const carried = await agent.get(`/v1/keys?tag=${encodeURIComponent('customer:acme')}&limit=1`);
  const nobody = await agent.get(`/v1/keys?tag=${encodeURIComponent('customer:nobody')}&limit=1`);
  t.equal(carried.status, 200);
  t.same(carried.body.keys, [], 'no key is shown');
  t.same(carried.body, nobody.body, 'and the answers are the same (no nextCursor that says "there are some")');
  if (carried.body.nextCursor) {
    const text = Buffer.from(carried.body.nextCursor, 'base64url').toString();
    t.comment(`cursor says: ${text}`);
  }
});
