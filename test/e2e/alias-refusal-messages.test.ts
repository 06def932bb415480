import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { ownersService } from '../helpers/alias-owners.ts';

// A caller with rights only on its own key must not resolve another owner's alias to that owner's key id
// through a refusal. Two requests name such an alias: moving it onto one's own key (PUT /v1/aliases/{name})
// and re-encrypting with it as the destinationKeyId. Both are refused, and the refusal names no key id:
// the key an alias names is for those who may use it.
const { svc, mallory, secretKey, mallorysKey } = await ownersService();
t.teardown(() => svc.stop());

t.test("moving another owner's alias onto one's own key: the refusal names no key id", async (t) => {
  const moved = await mallory.call('PUT', '/v1/aliases/alias%2Fpayroll-prod', { keyId: mallorysKey });
  t.equal(moved.status, 403);
  t.notMatch(JSON.stringify(moved.body), secretKey, "the refusal does not name the other owner's key id");
});

t.test('re-encrypting to an alias one may not use: the refusal names no key id', async (t) => {
  const sealed = await mallory.post(`/v1/keys/${mallorysKey}/encrypt`, { plaintextBase64: b64('x') });
  const moved = await mallory.post(`/v1/keys/${mallorysKey}/reencrypt`, {
    ciphertextBase64: sealed.body.ciphertextBase64,
    destinationKeyId: 'alias/payroll-prod',
  });
  t.equal(moved.status, 403);
  t.notMatch(JSON.stringify(moved.body), secretKey, "the refusal does not name the other owner's key id");
});
