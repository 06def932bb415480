import { SvcError } from '../errors.ts';

/** Where a value sits in the input; the path text is built only for the one that is refused. */
interface Place {
  parent?: Place;
  key: string | number;
}

function pathOf(place: Place | undefined): string {
  const keys: Array<string | number> = [];
  for (let p = place; p; p = p.parent) keys.push(p.key);
  let path = '';
  for (const key of keys.reverse()) path = typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;
  return path;
}

/**
 * The first NUL character anywhere in an operation's input (path parameters, query fields, JSON body
 * strings and object keys at any depth) as InvalidField naming where it is, or undefined. PostgreSQL
 * refuses NUL in text, so such input must be refused before any handler can carry it to a database.
 * The walk is iterative: a body nested as deep as its size allows cannot exhaust the stack.
 */
export function nulCharacterError(input: unknown): SvcError | undefined {
  // Nearly every input holds no NUL: a walk that allocates nothing says so; only one that finds one (or
  // goes deeper than any operation's input, where recursion would risk the stack) builds the path.
  if (!mayHoldNul(input, 0)) return undefined;
  const pending: Array<[unknown, Place | undefined]> = [[input, undefined]];
  while (pending.length) {
    const [value, place] = pending.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000'))
        return new SvcError('InvalidField', `${pathOf(place) || 'request'} must not contain a NUL character`);
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => {
        pending.push([item, { parent: place, key: i }]);
      });
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\u0000'))
          return new SvcError('InvalidField', `${pathOf(place) || 'request'} has a field name with a NUL character`);
        pending.push([item, { parent: place, key }]);
      }
    }
  }
  return undefined;
}

const SHALLOW = 64;

/**
 * False when no string or field name in the value holds a NUL; true when one does, or the value is deeper than SHALLOW.
 */
function mayHoldNul(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value !== 'object' || value === null) return false;
  if (depth === SHALLOW) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (mayHoldNul(value[i], depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key.includes('\u0000') || mayHoldNul((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}
