import { createHash } from 'node:crypto';
import type { AuditRecord } from '../model/index.ts';
import { isAlias } from '../ports/key-aliases.ts';

/** Field bounds of every audit record, in characters, so an oversized field is cut rather than the record refused. */
export const AUDIT_BOUNDS = {
  resource: 300,
  name: 256,
  subject: 256,
  operation: 32,
  outcome: 2048,
  contextKey: 64,
  contextValue: 1024,
  contextEntries: 64,
  correlationId: 128,
} as const;

// C0 and C1 controls, DEL, and lone surrogates: PostgreSQL refuses NUL in text, MySQL refuses invalid
// UTF-8, and a terminal reading the trail should never receive an escape sequence from a caller.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const CLEAN = /^[\u0020-\u007e]*$/;

/** The text with unsafe characters replaced by U+FFFD and cut to `max` characters (never inside a surrogate pair). */
export function boundText(text: string, max: number): string {
  let out = CLEAN.test(text) ? text : text.replace(UNSAFE, '\ufffd');
  if (out.length > max) {
    out = out.slice(0, max);
    if (/[\ud800-\udbff]$/.test(out)) out = out.slice(0, -1);
  }
  return out;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

/**
 * The audit resource of a key id taken from a request: the id itself when it is a UUID, otherwise
 * `invalid:<first 16 hex of its SHA-256>`, so an attacker-sized or binary id never reaches the trail.
 */
const LOWER_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function keyResource(rawId: unknown): string {
  if (typeof rawId === 'string' && LOWER_UUID.test(rawId)) return rawId;
  if (isUuid(rawId)) return rawId.toLowerCase();
  // An alias that named no key when the call resolved it: its name is the resource (250 ASCII characters at most).
  if (isAlias(rawId)) return rawId;
  return `invalid:${createHash('sha256')
    .update(String(rawId ?? ''))
    .digest('hex')
    .slice(0, 16)}`;
}

/**
 * A resource named by a caller-chosen text (a key name on a failed create, an agent id): prefix plus the
 * text cut where names end (256 characters, a key name's longest), so a refused over-long name reads as
 * the longest name it could have been rather than as however much of it fitted the resource column.
 */
export const namedResource = (prefix: string, text: unknown): string =>
  `${prefix}${boundText(typeof text === 'string' ? text : '', AUDIT_BOUNDS.name)}`;

const clean = (text: string, max: number): boolean => text.length <= max && CLEAN.test(text);

/** True when every field is printable ASCII within its bound: nothing to copy (the common case). */
function isClean(r: AuditRecord): boolean {
  if (
    !clean(r.resource, AUDIT_BOUNDS.resource) ||
    !clean(r.principal.subject, AUDIT_BOUNDS.subject) ||
    !clean(r.operation, AUDIT_BOUNDS.operation)
  )
    return false;
  if (!clean(r.outcome, AUDIT_BOUNDS.outcome) || !clean(r.correlationId, AUDIT_BOUNDS.correlationId)) return false;
  let n = 0;
  for (const key in r.context) {
    const value = r.context[key];
    if (
      ++n > AUDIT_BOUNDS.contextEntries ||
      typeof value !== 'string' ||
      !clean(key, AUDIT_BOUNDS.contextKey) ||
      !clean(value, AUDIT_BOUNDS.contextValue)
    )
      return false;
  }
  return true;
}

function boundContext(context: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (const key in context) {
    if (n++ >= AUDIT_BOUNDS.contextEntries) break;
    const value = context[key];
    out[boundText(key, AUDIT_BOUNDS.contextKey)] = boundText(
      typeof value === 'string' ? value : String(value),
      AUDIT_BOUNDS.contextValue,
    );
  }
  return out;
}

/**
 * Every field of a record within its bound and free of characters a store could refuse, so that one
 * record can never fail its own write, nor (in a batch) anyone else's. Records that are already clean,
 * the common case, are returned as they are.
 */
export function boundRecord(r: AuditRecord): AuditRecord {
  if (isClean(r)) return r;
  return {
    id: r.id,
    occurredAt: r.occurredAt,
    principal: { subject: boundText(r.principal.subject, AUDIT_BOUNDS.subject), kind: r.principal.kind },
    operation: boundText(r.operation, AUDIT_BOUNDS.operation),
    resource: boundText(r.resource, AUDIT_BOUNDS.resource),
    outcome: boundText(r.outcome, AUDIT_BOUNDS.outcome),
    context: boundContext(r.context),
    correlationId: boundText(r.correlationId, AUDIT_BOUNDS.correlationId),
  };
}

/**
 * A resource that names a key: a key id, an alias (one that named no key when the call resolved it), or
 * an id that is not a UUID (`invalid:<hash>`). Refusals word themselves alike for all three, so they never
 * tell whether such a key exists.
 */
export const isKeyResource = (resource: string): boolean =>
  resource.startsWith('invalid:') || isUuid(resource) || isAlias(resource);
