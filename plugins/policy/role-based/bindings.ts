import { isOperation, nameGlob, type Operation, type ResourceFacts } from '../../../kernel/index.ts';

/**
 * A binding value: operations on every key, or `{operations, keys}` limited to keys matching a pattern,
 * or `{operations, agents}` on the agent registry (`*`: every agent; or agent ids), or both fields.
 */
export type Binding = string[] | { operations: string[]; keys?: string[]; agents?: string[] };
export type Bindings = Record<string, Binding>;

/** Who "self" is for `owner:self`: the caller (an agent's parent), and a Service's tenant. */
export interface Self {
  subject: string;
  tenant?: string;
}

type KeyPattern = (facts: ResourceFacts, self: Self) => boolean;

/** A compiled binding: its operations and, for a scoped one, the patterns a key must match and the agents it covers. */
export interface Grant {
  operations: ReadonlySet<Operation>;
  /** Undefined: every key and every other resource; a list: only keys matching one of them (none when empty). */
  keys?: KeyPattern[];
  /** The agents of the agent registry this grant covers: `*` for all, or agent ids; none when undefined. */
  agents?: ReadonlySet<string>;
  /** The valid patterns of `keys` as written (owner:self, name:GLOB, id:UUID), for the policy's key scope. */
  patterns?: string[];
  /** The `name:` patterns of `keys`, as matchers: creating a key inside one needs a grant naming it. */
  names?: Array<(name: string) => boolean>;
}

const AGENT_ID = /^agent-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `owner:self`, `name:GLOB` (`*` matches any run of characters) or `id:UUID`; a string saying what is wrong otherwise.
 */
function compilePattern(pattern: string): KeyPattern | string {
  if (pattern === 'owner:self')
    return (facts, self) => facts.owner === self.subject || (self.tenant !== undefined && facts.tenant === self.tenant);
  if (pattern.startsWith('name:') && pattern.length > 5) {
    // Locate's matcher: the pattern is the operator's, but the names it is matched against are callers'.
    const matches = nameGlob(pattern.slice(5));
    return (facts) => matches(facts.name);
  }
  if (pattern.startsWith('id:') && UUID.test(pattern.slice(3))) {
    const id = pattern.slice(3).toLowerCase();
    return (facts) => facts.id?.toLowerCase() === id;
  }
  return `key pattern "${pattern}" is none of owner:self, name:GLOB, id:UUID`;
}

/** Compiles one binding, pushing a sentence per problem (named after `where`). */
export function compileBinding(where: string, binding: unknown, problems: string[]): Grant {
  const scoped = binding !== null && typeof binding === 'object' && !Array.isArray(binding);
  const ops: unknown = scoped ? (binding as { operations?: unknown }).operations : binding;
  const operations = new Set<Operation>();
  if (!Array.isArray(ops))
    problems.push(`${where} must be a list of Operation names or {operations: [...], keys: [...]}`);
  else
    for (const op of ops)
      typeof op === 'string' && isOperation(op)
        ? operations.add(op)
        : problems.push(`${where} names unknown operation "${String(op)}"`);
  if (!scoped) return { operations };
  const { keys, agents } = binding as { keys?: unknown; agents?: unknown };
  if (keys === undefined && agents === undefined) {
    problems.push(
      `${where}.keys must be a non-empty list of key patterns (owner:self, name:GLOB, id:UUID), or ${where}.agents a list of agents ("*" or agent ids)`,
    );
    return { operations, keys: [] };
  }
  const patterns = Array.isArray(keys)
    ? keys.filter((p): p is string => typeof p === 'string' && typeof compilePattern(p) !== 'string')
    : [];
  const names = patterns.filter((p) => p.startsWith('name:')).map((p) => nameGlob(p.slice('name:'.length)));
  return {
    operations,
    keys: keys === undefined ? [] : compileKeys(where, keys, problems),
    ...(agents === undefined ? {} : { agents: compileAgents(where, agents, problems) }),
    patterns,
    names,
  };
}

function compileKeys(where: string, keys: unknown, problems: string[]): KeyPattern[] {
  if (!Array.isArray(keys) || keys.length === 0) {
    problems.push(`${where}.keys must be a non-empty list of key patterns (owner:self, name:GLOB, id:UUID)`);
    return [];
  }
  const patterns: KeyPattern[] = [];
  for (const p of keys) {
    const compiled = typeof p === 'string' ? compilePattern(p) : `key pattern ${JSON.stringify(p)} is not a string`;
    if (typeof compiled === 'string') problems.push(`${where}: ${compiled}`);
    else patterns.push(compiled);
  }
  return patterns;
}

function compileAgents(where: string, agents: unknown, problems: string[]): ReadonlySet<string> {
  if (!Array.isArray(agents) || agents.length === 0) {
    problems.push(`${where}.agents must be a non-empty list: "*" (every agent) or agent ids (agent-<uuid>)`);
    return new Set();
  }
  const bad = agents.filter((a) => typeof a !== 'string' || (a !== '*' && !AGENT_ID.test(a)));
  if (bad.length)
    problems.push(
      `${where}.agents: ${bad.map((a) => JSON.stringify(a)).join(', ')} is neither "*" nor an agent id (agent-<uuid>)`,
    );
  return new Set(agents.filter((a): a is string => typeof a === 'string'));
}
