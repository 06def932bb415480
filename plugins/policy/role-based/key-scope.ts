import { type KeyScope, NO_KEYS, type Operation } from '../../../kernel/index.ts';
import type { Grant, Self } from './bindings.ts';

/**
 * The keys a set of grants allows `operation` on, as a KeyScope: every key when one grant is unscoped,
 * else the union of the grants' patterns with `owner:self` read as `self` (its subject, and its tenant
 * for a Service). It matches exactly the keys the grants' patterns match (role-policy.ts `grant`).
 */
export function keyScopeOf(grants: Array<Grant | undefined>, operation: Operation, self: Self): KeyScope {
  const granting = grants.filter((g): g is Grant => g?.operations.has(operation) === true);
  if (granting.some((g) => g.keys === undefined)) return 'every';
  const scope = {
    owners: new Set<string>(),
    tenants: new Set<string>(),
    names: new Set<string>(),
    ids: new Set<string>(),
  };
  for (const pattern of granting.flatMap((g) => g.patterns ?? [])) {
    if (pattern === 'owner:self') {
      scope.owners.add(self.subject);
      if (self.tenant !== undefined) scope.tenants.add(self.tenant);
    } else if (pattern.startsWith('name:')) scope.names.add(pattern.slice('name:'.length));
    else if (pattern.startsWith('id:')) scope.ids.add(pattern.slice('id:'.length).toLowerCase());
  }
  if (scope.owners.size + scope.tenants.size + scope.names.size + scope.ids.size === 0) return NO_KEYS;
  return { owners: [...scope.owners], tenants: [...scope.tenants], names: [...scope.names], ids: [...scope.ids] };
}
