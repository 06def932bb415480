import { redactUrl } from './net/redact-url.ts';

/**
 * Field names whose value is a credential or key material. Matched as written (pino's paths are case
 * sensitive), so both spellings a header or a setting comes in are listed.
 */
const SECRET_FIELDS = [
  'authorization',
  'Authorization',
  'proxy-authorization',
  'cookie',
  'Cookie',
  'set-cookie',
  'x-api-key',
  'token',
  'jwt',
  'bearer',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'idToken',
  'id_token',
  'password',
  'passphrase',
  'pin',
  'userPin',
  'soPin',
  'secret',
  'hmacSecret',
  'clientSecret',
  'client_secret',
  'apiKey',
  'api_key',
  'kek',
  'previousKeks',
  'privateKey',
  'material',
  'plaintext',
  'plaintextBase64',
];

const bracketed = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `["${name}"]`);

/**
 * pino's redact paths: every secret field at the top of a line's fields and two levels down (`headers`,
 * `request.headers`, an item of a list), so `{ headers: { authorization } }` logs `[Redacted]`.
 */
export const REDACTED_LOG_PATHS: string[] = SECRET_FIELDS.flatMap((name) => {
  const tail = bracketed(name);
  return [tail.startsWith('.') ? name : tail, `*${tail}`, `*.*${tail}`];
});

const JWT = /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9_\-.~+/=]+/gi;

/**
 * A text with every credential it carries cut out: JWTs, bearer and basic credentials, URL passwords and token
 * parameters.
 */
export function redactLogText(text: string): string {
  return redactUrl(text.replace(BEARER, '$1 [Redacted]').replace(JWT, '[Redacted JWT]'));
}

/**
 * The line's fields with every text value cleaned by `redactLogText`, at any depth. Error objects are
 * reduced to their name, message and code first: their other properties may hold a request's
 * configuration (headers included), and a stack is noise in a log collector. Objects are copied, never
 * changed in place: the caller still holds them.
 */
export function redactLogFields(fields: Record<string, unknown>): Record<string, unknown> {
  return clean(fields, 0) as Record<string, unknown>;
}

function clean(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactLogText(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return { name: value.name, message: redactLogText(value.message), ...(code === undefined ? {} : { code }) };
  }
  if (Array.isArray(value)) return value.map((item) => clean(item, depth + 1));
  if (value instanceof Date || Buffer.isBuffer(value) || ArrayBuffer.isView(value))
    return value instanceof Date ? value : '[Redacted bytes]';
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = clean(item, depth + 1);
  return out;
}
