import { SvcError } from '../errors.ts';

/**
 * The deepest nesting of objects and arrays a request body may have. No operation's input is more than
 * a few levels deep; a body nested 300,000 levels (600 KB, within the size limit) took JSON.parse and
 * the input checks after it a few hundred milliseconds on the thread that serves every request.
 */
export const MAX_JSON_DEPTH = 64;

// What co-body's strict JSON mode accepts: an object or an array, after RFC 8259 whitespace only.
const STRICT_JSON = /^[\x20\x09\x0a\x0d]*(\[|\{)/;
// A "__proto__" key, however escaped (the pattern @hapi/bourne, co-body's parser, looks for).
const PROTO_KEY =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

const notJson = () => new SvcError('BadRequest', 'request body is not valid JSON');

/**
 * True when the text holds more than `max` of `{` and `[` in all: a bound on its depth, found with the engine's own
 * search.
 */
function opensMoreThan(text: string, max: number): boolean {
  let opened = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++opened > max) return true;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++opened > max) return true;
  return false;
}

/**
 * True as soon as the text opens more than `max` objects or arrays inside each other (outside strings); one pass, no
 * allocation.
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  // Nesting can never be deeper than the number of brackets that open: a body with few of them (every
  // single call's) is answered by a native search instead of a scan of each character.
  if (!opensMoreThan(text, max)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

function hasProtoKey(value: unknown): boolean {
  const pending = [value];
  while (pending.length) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Object.hasOwn(node, '__proto__')) return true;
    for (const item of Object.values(node)) pending.push(item);
  }
  return false;
}

/**
 * A request body's text as JSON, as co-body's strict mode read it before (empty text is `{}`; anything but
 * an object or array, and any "__proto__" key, is 400), and refused with 400 before parsing when it is
 * nested deeper than MAX_JSON_DEPTH.
 */
export function parseJsonBody(text: string): unknown {
  if (!text) return {};
  if (!STRICT_JSON.test(text)) throw notJson();
  if (nestedDeeperThan(text, MAX_JSON_DEPTH))
    throw new SvcError('BadRequest', `request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw notJson();
  }
  if (PROTO_KEY.test(text) && hasProtoKey(value)) throw notJson();
  return value;
}
