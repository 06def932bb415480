import type { Test } from 'tap';
import type { ApiClient } from './client.ts';
import { until } from './until.ts';

/** The subject binding of the test's operator, `ops`: the configured bindings, version 1. */
export const OPS = { ops: ['Create', 'Get', 'Activate', 'Query', 'Administer'] };

/**
 * Role-based policy under dev authentication (X-Svc-User names the subject, no groups): the bindings name
 * subjects. Every other subject (bob) may do nothing until a PUT binds it.
 */
export const POLICY_ENV = { SVC_POLICY_KIND: 'role-based', SVC_POLICY_SUBJECT_BINDINGS: JSON.stringify(OPS) };

/** How soon every node obeys a new version (docs/policy.md). */
export const PROPAGATION_MS = 2000;

/** The time from `since` until `check` holds, polled; fails the test past PROPAGATION_MS. */
export async function obeyedWithin(t: Test, what: string, since: number, check: () => Promise<boolean>): Promise<void> {
  await until(check, what, PROPAGATION_MS + 3000);
  const ms = Date.now() - since;
  t.comment(`${what}: ${ms} ms after the PUT was answered`);
  t.ok(ms <= PROPAGATION_MS, `${what} within ${PROPAGATION_MS} ms (${ms} ms)`);
}

/** PUT /v1/policy with subject bindings only. */
export async function putPolicy(client: ApiClient, subjectBindings: Record<string, unknown>, etag: string) {
  return client.call('PUT', '/v1/policy', { roleBindings: {}, subjectBindings }, { 'If-Match': etag });
}

/** The Success records of Administer on policy, oldest first, once `count` of them are in the trail. */
export async function policyVersionsAudited(client: ApiClient, count: number): Promise<string[]> {
  let versions: string[] = [];
  await until(
    async () => {
      const page = await client.get('/v1/audit?key=policy&op=Administer&limit=100');
      versions = (page.body.records as any[])
        .filter((r) => r.outcome === 'Success')
        .map((r) => r.context['policy.version'])
        .reverse();
      return versions.length >= count;
    },
    `${count} audited policy versions`,
    20_000,
  );
  return versions;
}
