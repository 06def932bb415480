import { SvcError } from '../errors.ts';
import type { Principal } from '../model/index.ts';
import { ALIAS_PATTERN } from '../ports/key-aliases.ts';
import { type KeyScope, nameGlob } from '../ports/key-locate.ts';
import type { ResourceFacts } from '../ports/policy.ts';

/** Most key patterns one agent carries. */
export const MAX_AGENT_KEY_PATTERNS = 50;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What is wrong with a key pattern an agent is to be issued with, or undefined. */
export function agentKeyPatternProblem(pattern: string): string | undefined {
  if (pattern === 'owner:self') return undefined;
  if (pattern.startsWith('name:') && pattern.length > 5 && pattern.length <= 5 + 256) return undefined;
  if (pattern.startsWith('id:') && UUID.test(pattern.slice(3))) return undefined;
  if (pattern.startsWith('alias:') && ALIAS_PATTERN.test(`alias/${pattern.slice(6)}`)) return undefined;
  return `key pattern ${JSON.stringify(pattern.slice(0, 300))} is none of owner:self, name:GLOB, id:UUID, alias:NAME`;
}

/** The aliases named by `alias:` patterns, as `alias/NAME` (what the journal resolves). */
export const aliasesOfPatterns = (patterns: readonly string[]): string[] =>
  patterns.filter((p) => p.startsWith('alias:')).map((p) => `alias/${p.slice('alias:'.length)}`);

/**
 * Whether a key-scoped agent may touch the key with these facts: some pattern matches it (`owner:self`:
 * keys its parent owns; `name:GLOB`; `id:UUID`; `alias:NAME`: the key that alias names at this call,
 * given in `aliasKeys`). Agents without patterns are not key-scoped (true); a call on no known key
 * (facts undefined) matches nothing.
 */
export function agentMayTouch(
  principal: Principal,
  facts: ResourceFacts | undefined,
  aliasKeys: ReadonlySet<string> | undefined,
): boolean {
  if (principal.kind !== 'Agent' || principal.keys === undefined) return true;
  if (facts === undefined) return false;
  const id = facts.id?.toLowerCase();
  return principal.keys.some((pattern) => {
    if (pattern === 'owner:self') return facts.owner === principal.parent;
    if (pattern.startsWith('name:')) return nameGlob(pattern.slice(5))(facts.name);
    if (pattern.startsWith('id:')) return id !== undefined && pattern.slice(3).toLowerCase() === id;
    return id !== undefined && aliasKeys?.has(id) === true;
  });
}

/** The refusal of a key-scoped agent on a key outside its patterns. */
export const outsideAgentKeys = (principal: Principal, operation: string) =>
  new SvcError(
    'PermissionDenied',
    `agent ${principal.subject} is limited to keys matching its key patterns; ${operation} on this key is outside them`,
  );

/**
 * The keys a key-scoped agent's patterns match, as a key index scope: Locate reads only those rows, so its
 * page sizes and cursors say nothing of keys outside them (each row is still checked with the policy).
 */
export function agentKeyScope(
  patterns: readonly string[],
  parent: string,
  aliasKeys: ReadonlySet<string> | undefined,
): KeyScope {
  const names = patterns.filter((p) => p.startsWith('name:')).map((p) => p.slice('name:'.length));
  const ids = patterns.filter((p) => p.startsWith('id:')).map((p) => p.slice('id:'.length).toLowerCase());
  return {
    owners: patterns.includes('owner:self') ? [parent] : [],
    tenants: [],
    names,
    ids: [...ids, ...(aliasKeys ?? [])],
  };
}
