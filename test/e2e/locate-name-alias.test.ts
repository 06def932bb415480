import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// Locate by name (REST ?name=, KMIP Locate by Name) reads alias/NAME as an alias. If a key could be *named*
// alias/db, whoever creates the alias alias/db would have that lookup answer their key instead, and a
// client that finds its key by name and encrypts would encrypt under someone else's key. So no key takes
// a name starting with alias/: the name and the alias can never be confused.
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_RISK_ENABLED: 'false',
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify({
    billing: ['Create', 'Activate', 'Get', 'Locate', 'Encrypt', 'Decrypt'],
    mallory: {
      operations: ['Create', 'Activate', 'Get', 'Locate', 'Encrypt', 'Decrypt', 'AddAttribute'],
      keys: ['owner:self'],
    },
  }),
});
t.teardown(() => svc.stop());
const as = async (sub: string) =>
  new ApiClient(svc.url, {
    Authorization: `Bearer ${await mintToken({ sub, svc_kind: 'human' }, { ttlSeconds: 3600 })}`,
  });
const billing = await as('billing');
const mallory = await as('mallory');

t.test('a key name starting with alias/ is refused: names and aliases never collide', async (t) => {
  const refused = await billing.post('/v1/keys', { spec: { name: 'alias/db', algorithm: 'AES' } });
  t.equal(refused.status, 400);
  t.match(refused.body.message, /must not start with alias\//);
  t.same((await billing.get('/v1/keys?name=alias%2Fdb')).body.keys, [], 'nothing was created');
});

t.test('Locate by an alias answers the key the alias names, only to callers who may read it', async (t) => {
  const theirs = await mallory.key({ algorithm: 'AES', name: 'mallory-db' });
  t.equal((await mallory.call('PUT', '/v1/aliases/alias%2Fdb', { keyId: theirs })).status, 200);
  t.same(
    (await mallory.get('/v1/keys?name=alias%2Fdb')).body.keys.map((k: any) => k.id),
    [theirs],
    'its owner finds it through the alias',
  );
  const billingsView = await billing.get('/v1/keys?name=alias%2Fdb');
  t.same(
    billingsView.body.keys.map((k: any) => k.id),
    [theirs],
    "billing (allowed Locate and Get on every key) finds mallory's key as what the alias names, never as a key named alias/db",
  );
});
