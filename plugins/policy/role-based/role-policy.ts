import {
  isKeyResource,
  type KeyScope,
  NO_KEYS,
  type Operation,
  type Policy,
  type PolicyDecision,
  type Principal,
  type ResourceFacts,
} from '../../../kernel/index.ts';
import { compileBinding, type Bindings, type Grant, type Self } from './bindings.ts';
import { keyScopeOf } from './key-scope.ts';

export type { Bindings } from './bindings.ts';

/** Worded from the resource alone, never from whether its key was found: a refusal is no existence oracle. */
const onKey = (resource: string) => (isKeyResource(resource) ? ' on this key' : '');

function compileAll(kind: string, bindings: Bindings, problems: string[]): Map<string, Grant> {
  return new Map(
    Object.entries(bindings).map(([name, binding]) => [
      name,
      compileBinding(`policy.${kind}.${name}`, binding, problems),
    ]),
  );
}

/** Problems with the configured bindings, one sentence each (empty when they are usable). */
export function bindingProblems(roleBindings: Bindings, subjectBindings: Bindings): string[] {
  const problems: string[] = [];
  if (Object.keys(roleBindings).length === 0 && Object.keys(subjectBindings).length === 0) {
    problems.push(
      'policy.kind is role-based but both policy.roleBindings and ' +
        'policy.subjectBindings are empty: nobody could do anything',
    );
  }
  compileAll('roleBindings', roleBindings, problems);
  compileAll('subjectBindings', subjectBindings, problems);
  return problems;
}

/**
 * Role-based authorization: a Human or Service may do what its subject binding and its groups'
 * role bindings allow. A binding is a list of operations (on every key and every other resource) or
 * `{operations, keys}`, which grants those operations only on keys matching one of its patterns
 * (`owner:self`: keys the caller owns, or of its tenant for a Service; `name:GLOB`; `id:UUID`). A call
 * on a key outside every matching binding is refused, as is one on an unknown key (no existence oracle).
 * An Agent may do what its own token allows AND what its parent may do on that key, with `owner:self`
 * meaning the parent's keys: an agent never exceeds the Human that issued it. Issuing an agent checks
 * operations only ('agent:new'); its keys are bounded at every use. The agent registry is granted only
 * by bindings that name agents (`{operations, agents: ["*" | agent ids]}`): Query on `agent:*` (every
 * agent listed) and Revoke on `agent:<id>` (stopping an agent its caller did not issue; a parent always
 * may stop its own, without any binding). Creating (or importing) a key whose name a `name:` pattern of
 * any binding matches needs an unscoped Create grant or one under a binding with a matching `name:`
 * pattern: otherwise `owner:self` would let anyone squat the names another team's bindings are for.
 */
export class RoleBasedPolicy implements Policy {
  readonly usesResourceFacts: boolean;
  private readonly roles: Map<string, Grant>;
  private readonly subjects: Map<string, Grant>;
  /** Every `name:` pattern of every binding: the names some binding claims for its keys. */
  private readonly claimedNames: Array<(name: string) => boolean>;

  constructor(roles: Bindings, subjects: Bindings) {
    const problems: string[] = [];
    this.roles = compileAll('roleBindings', roles, problems);
    this.subjects = compileAll('subjectBindings', subjects, problems);
    const all = [...this.roles.values(), ...this.subjects.values()];
    this.usesResourceFacts = all.some((g) => g.keys !== undefined && g.keys.length > 0);
    this.claimedNames = all.flatMap((g) => g.names ?? []);
  }

  authorize(principal: Principal, operation: Operation, resource: string, facts?: ResourceFacts): PolicyDecision {
    if (principal.kind === 'Agent') {
      if (!principal.allowedOperations.includes(operation))
        return { allowed: false, reason: `agent ${principal.subject} is not scoped for ${operation}` };
      if (
        !this.grants(principal.parent, principal.parentGroups, operation, resource, facts, {
          subject: principal.parent,
        })
      ) {
        return {
          allowed: false,
          reason: `agent ${principal.subject} may not ${operation}: its parent ${principal.parent} is not allowed to ${operation}${onKey(resource)}`,
        };
      }
      return { allowed: true };
    }
    const self: Self =
      principal.kind === 'Service' && principal.tenant
        ? { subject: principal.subject, tenant: principal.tenant }
        : { subject: principal.subject };
    if (this.grants(principal.subject, principal.groups, operation, resource, facts, self)) return { allowed: true };
    return {
      allowed: false,
      reason: `${principal.subject} is not allowed to ${operation}${onKey(resource)} (no role or subject binding grants it)`,
    };
  }

  mayEver(principal: Principal, operation: Operation): boolean {
    if (principal.kind === 'Agent')
      return (
        principal.allowedOperations.includes(operation) &&
        this.grantsEver(principal.parent, principal.parentGroups, operation)
      );
    return this.grantsEver(principal.subject, principal.groups, operation);
  }

  keyScope(principal: Principal, operation: Operation): KeyScope {
    if (principal.kind === 'Agent') {
      if (!principal.allowedOperations.includes(operation)) return NO_KEYS;
      return keyScopeOf(
        [this.subjects.get(principal.parent), ...principal.parentGroups.map((g) => this.roles.get(g))],
        operation,
        { subject: principal.parent },
      );
    }
    const self: Self =
      principal.kind === 'Service' && principal.tenant
        ? { subject: principal.subject, tenant: principal.tenant }
        : { subject: principal.subject };
    return keyScopeOf(
      [this.subjects.get(principal.subject), ...principal.groups.map((g) => this.roles.get(g))],
      operation,
      self,
    );
  }

  /** Some binding of the subject or its groups grants the operation on every key or on keys matching its patterns. */
  private grantsEver(subject: string, groups: string[], operation: Operation): boolean {
    const ever = (g: Grant | undefined) => g?.operations.has(operation) && (g.keys === undefined || g.keys.length > 0);
    return ever(this.subjects.get(subject)) || groups.some((group) => ever(this.roles.get(group)));
  }

  private grants(
    subject: string,
    groups: string[],
    operation: Operation,
    resource: string,
    facts: ResourceFacts | undefined,
    self: Self,
  ): boolean {
    if (this.grant(this.subjects.get(subject), operation, resource, facts, self)) return true;
    for (const g of groups) if (this.grant(this.roles.get(g), operation, resource, facts, self)) return true;
    return false;
  }

  private grant(
    grant: Grant | undefined,
    operation: Operation,
    resource: string,
    facts: ResourceFacts | undefined,
    self: Self,
  ): boolean {
    if (!grant?.operations.has(operation)) return false;
    // Every agent's registry entry (jti included), and stopping another Human's agent, need a binding
    // that names agents: a plain Query or Revoke binding is about keys.
    if (
      resource === 'agent:*' ||
      (operation === 'Revoke' && resource.startsWith('agent:') && resource !== 'agent:new')
    ) {
      return grant.agents !== undefined && (grant.agents.has('*') || grant.agents.has(resource.slice('agent:'.length)));
    }
    if (!grant.keys) return true;
    // Issuing an agent, and finding keys (each key found is then checked on its own): some key will do.
    if (resource === 'agent:new' || resource.startsWith('pattern:')) return grant.keys.length > 0;
    if (facts === undefined) return false;
    // A new key (no id yet) named inside some binding's name pattern belongs to whoever that pattern is
    // for: only a grant that names it may create it, never owner:self (which any creator satisfies).
    if (operation === 'Create' && facts.id === undefined && this.isClaimed(facts.name))
      return (grant.names ?? []).some((matches) => matches(facts.name));
    return grant.keys.some((matches) => matches(facts, self));
  }

  private isClaimed(name: string): boolean {
    return name !== '' && this.claimedNames.some((matches) => matches(name));
  }
}
