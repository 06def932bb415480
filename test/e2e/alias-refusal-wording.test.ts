import t from 'tap';
import { ownersService } from '../helpers/alias-owners.ts';

// With key-scoped role-based bindings, an operation on `alias/NAME` by a caller without rights on the key is
// refused in the same words whether the alias names a key or not: the policy does not word its refusal after
// whether it found facts about the resource. Key ids are not guessable, but alias names such as
// alias/payroll-prod are, so a refusal that said "on this key" only for aliases that exist would tell
// anyone which ones do.
const { svc, carol, mallory } = await ownersService();
t.teardown(() => svc.stop());

t.test('GET /v1/keys/alias%2FNAME: the refusal reads the same whether the alias exists or not', async (t) => {
  for (const [who, caller] of [
    ['a caller bound to nothing', carol],
    ['an owner of other keys', mallory],
  ] as const) {
    const existing = await caller.get('/v1/keys/alias%2Fpayroll-prod');
    const missing = await caller.get('/v1/keys/alias%2Fno-such-alias');
    t.equal(existing.status, 403, `${who}: refused`);
    t.equal(existing.status, missing.status, `${who}: one status`);
    t.equal(existing.body.message, missing.body.message, `${who}: one message`);
  }
});
