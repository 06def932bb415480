import type { PolicyDocument, Principal } from '../../../kernel/index.ts';
import { type Bindings, RoleBasedPolicy } from '../role-based/role-policy.ts';

/**
 * The largest policy document stored, as JSON: far above any real deployment's bindings (some thousands),
 * and a bound on what every node compiles at each change and the journal keeps per version, whatever
 * http.maxBodyBytes allows.
 */
export const MAX_POLICY_DOCUMENT_BYTES = 1024 * 1024;

/** A subject no binding can name by accident (binding names are the operator's, this one is never a login). */
const NOBODY = '\u0000policy-check';

/**
 * Problems a new version would cause for changing the policy later, one sentence each: once stored, the
 * configured bindings no longer apply, so a version that lets nobody Administer the policy could only be
 * undone in the database.
 */
export function administrationProblems(document: PolicyDocument): string[] {
  const policy = new RoleBasedPolicy(document.roleBindings as Bindings, document.subjectBindings as Bindings);
  const human = (subject: string, groups: string[]): Principal => ({ kind: 'Human', subject, groups });
  const administers = (p: Principal) => policy.authorize(p, 'Administer', 'policy').allowed;
  const someone =
    Object.keys(document.roleBindings).some((group) => administers(human(NOBODY, [group]))) ||
    Object.keys(document.subjectBindings).some((subject) => administers(human(subject, [])));
  return someone
    ? []
    : [
        'no binding grants Administer on the policy (a list of operations naming Administer): nobody could ' +
          'change the policy again',
      ];
}
