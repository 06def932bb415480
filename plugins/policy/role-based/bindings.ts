import { isOperation, type Operation } from '../../../kernel/model/index.ts';
import type { ResourceFacts } from '../../../kernel/ports/policy.ts';

/** A binding value: operations on every key, or `{operations, keys}` limited to keys matching a pattern. */
export type Binding = string[] | { operations: string[]; keys: string[] };
export type Bindings = Record<string, Binding>;

/** Who "self" is for `owner:self`: the caller (an agent's parent), and a Service's tenant. */
export interface Self {
  subject: string;
  tenant?: string;
}

type KeyPattern = (facts: ResourceFacts, self: Self) => boolean;

/** A compiled binding: its operations and, for a key-scoped one, the patterns a key must match. */
export interface Grant {
  operations: ReadonlySet<Operation>;
  keys?: KeyPattern[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `owner:self`, `name:GLOB` (`*` matches any run of characters) or `id:UUID`; a string saying what is wrong otherwise. */
function compilePattern(pattern: string): KeyPattern | string {
  if (pattern === 'owner:self') return (facts, self) => facts.owner === self.subject || (self.tenant !== undefined && facts.tenant === self.tenant);
  if (pattern.startsWith('name:') && pattern.length > 5) {
    const glob = new RegExp(`^${pattern.slice(5).split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
    return (facts) => glob.test(facts.name);
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
  if (!Array.isArray(ops)) problems.push(`${where} must be a list of Operation names or {operations: [...], keys: [...]}`);
  else for (const op of ops) typeof op === 'string' && isOperation(op) ? operations.add(op) : problems.push(`${where} names unknown operation "${String(op)}"`);
  if (!scoped) return { operations };
  const keys = (binding as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) {
    problems.push(`${where}.keys must be a non-empty list of key patterns (owner:self, name:GLOB, id:UUID)`);
    return { operations, keys: [] };
  }
  const patterns: KeyPattern[] = [];
  for (const p of keys) {
    const compiled = typeof p === 'string' ? compilePattern(p) : `key pattern ${JSON.stringify(p)} is not a string`;
    if (typeof compiled === 'string') problems.push(`${where}: ${compiled}`);
    else patterns.push(compiled);
  }
  return { operations, keys: patterns };
}
