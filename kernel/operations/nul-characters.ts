import { SvcError } from '../errors.ts';

/**
 * The first NUL character anywhere in an operation's input (path parameters, query fields, JSON body
 * strings and object keys at any depth) as InvalidField naming where it is, or undefined. PostgreSQL
 * refuses NUL in text, so such input must be refused before any handler can carry it to a database.
 * The walk is iterative: a body nested as deep as its size allows cannot exhaust the stack.
 */
export function nulCharacterError(input: unknown): SvcError | undefined {
  const pending: Array<[unknown, string]> = [[input, '']];
  while (pending.length) {
    const [value, at] = pending.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return new SvcError('InvalidField', `${at || 'request'} must not contain a NUL character`);
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => pending.push([item, `${at}[${i}]`]));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\u0000')) return new SvcError('InvalidField', `${at || 'request'} has a field name with a NUL character`);
        pending.push([item, at ? `${at}.${key}` : key]);
      }
    }
  }
  return undefined;
}
