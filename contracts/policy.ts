import type { Test } from 'tap';
import {
  matchesLocate,
  type Operation,
  OPERATIONS,
  type Policy,
  type Principal,
  type ResourceFacts,
} from '../kernel/index.ts';

const human = (subject: string, groups: string[] = []): Principal => ({ kind: 'Human', subject, groups });
const agent = (parent: string, parentGroups: string[], ops: Operation[]): Principal => ({
  kind: 'Agent',
  subject: 'agent-contract',
  parent,
  parentGroups,
  purpose: 'contract',
  allowedOperations: ops,
});

export interface PolicyHarness {
  policy: Policy;
  /** A Human this policy allows every operation (an admin binding), to check agents are still bounded. */
  admin: Principal & { kind: 'Human' };
}

/**
 * The conformance suite every policy passes: answers are well formed and deterministic, never throw,
 * and an agent never gets an operation outside its own scopes, whatever its parent may do.
 */
export function policyContract(t: Test, make: () => PolicyHarness): void {
  t.test(
    'every answer is {allowed} or {allowed: false, reason}, and the same question gets the same answer',
    async (t) => {
      const { policy, admin } = make();
      for (const principal of [admin, human('stranger'), human('', []), agent(admin.subject, admin.groups, ['Sign'])]) {
        for (const op of OPERATIONS) {
          const a = policy.authorize(principal, op, '00000000-0000-4000-8000-000000000001');
          const b = policy.authorize(principal, op, '00000000-0000-4000-8000-000000000001');
          t.same(a, b);
          if (!a.allowed) t.match(a.reason, /\S/, 'a refusal says why');
        }
      }
    },
  );

  t.test('the admin may do everything', async (t) => {
    const { policy, admin } = make();
    t.same(
      OPERATIONS.filter((op) => !policy.authorize(admin, op, 'k').allowed),
      [],
    );
  });

  t.test('an agent is bounded by its own scopes, even under a parent who may do everything', async (t) => {
    const { policy, admin } = make();
    const scoped = agent(admin.subject, admin.groups, ['Sign', 'Verify']);
    t.same(
      OPERATIONS.filter((op) => policy.authorize(scoped, op, 'k').allowed),
      ['Sign', 'Verify'],
    );
    const none = agent(admin.subject, admin.groups, []);
    t.same(
      OPERATIONS.filter((op) => policy.authorize(none, op, 'k').allowed),
      [],
      'an agent with no scopes may do nothing',
    );
  });
}

/**
 * For a policy that answers `mayEver` (which key operations a door lists to a caller): it never hides
 * what `authorize` allows on a key, and it lists an agent nothing outside its own scopes.
 */
export function policyListingContract(t: Test, make: () => PolicyHarness): void {
  t.test('mayEver lists whatever authorize allows on a key, and bounds agents by their scopes', async (t) => {
    const { policy, admin } = make();
    if (!policy.mayEver)
      return t.pass('this policy does not list (doors then show every operation but human-only ones)');
    for (const principal of [
      admin,
      human('stranger'),
      agent(admin.subject, admin.groups, ['Sign', 'Verify']),
      agent('stranger', [], ['Sign']),
    ]) {
      for (const op of OPERATIONS) {
        const allowedSomewhere = policy.authorize(principal, op, '00000000-0000-4000-8000-000000000001', {
          id: '00000000-0000-4000-8000-000000000001',
          name: 'contract',
          owner: principal.kind === 'Agent' ? principal.parent : principal.subject,
        }).allowed;
        const listed = policy.mayEver(principal, op);
        if (allowedSomewhere) t.ok(listed, `${principal.subject} ${op}: allowed, so listed`);
        if (principal.kind === 'Agent' && !principal.allowedOperations.includes(op))
          t.notOk(listed, `${principal.subject} ${op}: outside its scopes, never listed`);
      }
    }
    t.same(
      OPERATIONS.filter((op) => policy.mayEver!(admin, op)),
      OPERATIONS,
      'the admin is listed everything',
    );
  });
}

/**
 * For a policy that answers `keyScope` (finding keys narrows its query with it): the scope holds
 * exactly the keys `authorize` lets the principal perform the operation on, no more (hidden keys would
 * show in page sizes and cursors) and no fewer (keys it may use would be missing). `principals` are
 * the callers to check, `keys` the keys to check them on.
 */
export function policyKeyScopeContract(
  t: Test,
  make: () => { policy: Policy; principals: Principal[]; keys: ResourceFacts[] },
): void {
  t.test('keyScope holds exactly the keys authorize allows', async (t) => {
    const { policy, principals, keys } = make();
    if (!policy.keyScope) return t.pass('this policy gives no key scope (each key is then checked one by one)');
    for (const principal of principals) {
      for (const op of ['Get', 'Sign', 'Destroy'] as Operation[]) {
        const scope = policy.keyScope(principal, op);
        for (const facts of keys) {
          const row = {
            id: facts.id!,
            name: facts.name,
            algorithm: 'AES',
            state: 'Active' as const,
            owner: facts.owner,
            ...(facts.tenant ? { tenant: facts.tenant } : {}),
            createdAt: '2026-01-01T00:00:00.000Z',
          };
          const inScope = matchesLocate(row, { scope });
          const allowed = policy.authorize(principal, op, facts.id!, facts).allowed;
          t.equal(
            inScope,
            allowed,
            `${principal.kind} ${principal.subject} ${op} on ${facts.name} (owner ${facts.owner}${facts.tenant ? `, tenant ${facts.tenant}` : ''})`,
          );
        }
      }
    }
  });
}
