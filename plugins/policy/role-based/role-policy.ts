import { isOperation, type Operation, type Principal } from '../../../kernel/model/index.ts';
import type { Policy, PolicyDecision } from '../../../kernel/ports/policy.ts';

export type Bindings = Record<string, string[]>;

/** Problems with the configured bindings, one sentence each (empty when they are usable). */
export function bindingProblems(roleBindings: Bindings, subjectBindings: Bindings): string[] {
  const problems: string[] = [];
  if (Object.keys(roleBindings).length === 0 && Object.keys(subjectBindings).length === 0) {
    problems.push('policy.kind is role-based but both policy.roleBindings and policy.subjectBindings are empty: nobody could do anything');
  }
  for (const [kind, bindings] of [['roleBindings', roleBindings], ['subjectBindings', subjectBindings]] as const) {
    for (const [name, ops] of Object.entries(bindings)) {
      if (!Array.isArray(ops)) problems.push(`policy.${kind}.${name} must be a list of Operation names`);
      else for (const op of ops) if (typeof op !== 'string' || !isOperation(op)) problems.push(`policy.${kind}.${name} names unknown operation "${String(op)}"`);
    }
  }
  return problems;
}

/**
 * Role-based authorization (SPEC 5): a Human or Service may do what its subject binding and its groups'
 * role bindings allow. An Agent may do what its own token allows AND what its parent may do, so an agent
 * never exceeds the human that issued it.
 */
export class RoleBasedPolicy implements Policy {
  constructor(
    private readonly roles: Bindings,
    private readonly subjects: Bindings,
  ) {}

  allowed(subject: string, groups: string[]): Set<Operation> {
    const ops = new Set<Operation>((this.subjects[subject] ?? []) as Operation[]);
    for (const g of groups) for (const op of this.roles[g] ?? []) ops.add(op as Operation);
    return ops;
  }

  authorize(principal: Principal, operation: Operation): PolicyDecision {
    if (principal.kind === 'Agent') {
      if (!principal.allowedOperations.includes(operation)) return { allowed: false, reason: `agent ${principal.subject} is not scoped for ${operation}` };
      if (!this.allowed(principal.parent, principal.parentGroups).has(operation)) {
        return { allowed: false, reason: `agent ${principal.subject} may not ${operation}: its parent ${principal.parent} is not allowed to` };
      }
      return { allowed: true };
    }
    if (this.allowed(principal.subject, principal.groups).has(operation)) return { allowed: true };
    return { allowed: false, reason: `${principal.subject} is not allowed to ${operation} (no role or subject binding grants it)` };
  }
}
