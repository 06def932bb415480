import {
  type KeyScope,
  NO_KEYS,
  type Operation,
  type Policy,
  type PolicyDecision,
  type Principal,
} from '../../../kernel/index.ts';

/**
 * Development policy: Humans and Services may do everything; an Agent only what its token allows
 * (the parent bound is checked when the token is issued and by role-based policy).
 */
export class DevPolicy implements Policy {
  authorize(principal: Principal, operation: Operation): PolicyDecision {
    if (principal.kind !== 'Agent' || principal.allowedOperations.includes(operation)) return { allowed: true };
    return { allowed: false, reason: `agent ${principal.subject} is not scoped for ${operation}` };
  }

  mayEver(principal: Principal, operation: Operation): boolean {
    return principal.kind !== 'Agent' || principal.allowedOperations.includes(operation);
  }

  keyScope(principal: Principal, operation: Operation): KeyScope {
    return this.mayEver(principal, operation) ? 'every' : NO_KEYS;
  }
}
