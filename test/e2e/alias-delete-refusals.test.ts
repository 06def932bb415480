import t from 'tap';
import { ownersService } from '../helpers/alias-owners.ts';

// DELETE /v1/aliases/{name} by a caller bound to no key answers an alias that exists and one that does not
// alike, and never names the key an alias names. Otherwise any authenticated caller enumerates the
// deployment's aliases (alias/payroll-prod is easy to guess) and learns the key id each one names, just by
// asking to delete them. Reads hold the same rule (alias-refusal-wording.test.ts): a refusal does not word
// itself after whether the alias names a key.
const { svc, alice, carol, secretKey } = await ownersService();
t.teardown(() => svc.stop());

t.test('DELETE /v1/aliases by a caller with no rights: no existence oracle, no key id', async (t) => {
  const existing = await carol.call('DELETE', '/v1/aliases/alias%2Fpayroll-prod');
  const missing = await carol.call('DELETE', '/v1/aliases/alias%2Fno-such-alias');
  t.notMatch(JSON.stringify(existing.body), secretKey, 'the refusal does not name the key the alias names');
  t.equal(existing.status, missing.status, 'an existing alias and a missing one answer with one status');
  t.equal(
    existing.body.message,
    String(missing.body.message).replaceAll('no-such-alias', 'payroll-prod'),
    'and with one message',
  );
  t.equal(
    (await alice.get('/v1/keys/alias%2Fpayroll-prod')).body.id,
    secretKey,
    "and the alias still names its owner's key",
  );
});
