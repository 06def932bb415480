import { type AuditQuery, isOperation, SvcError, timestampField } from '../../kernel/index.ts';

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/** A since/until of the audit routes: an RFC 3339 date-time (or a plain date), else 400 InvalidField naming it. */
export const timestamp = timestampField;

/** Query string to AuditQuery for GET /v1/audit: limit clamped to 1..1000, offset to 0 or more. */
export function parseAuditQuery(q: {
  since?: string;
  until?: string;
  actor?: string;
  key?: string;
  op?: string;
  promptId?: string;
  limit?: number;
  offset?: number;
  before?: string;
}): AuditQuery {
  if (q.op !== undefined && !isOperation(q.op))
    throw new SvcError('InvalidField', `op must be an Operation name, not "${q.op}"`);
  return {
    since: timestamp(q.since, 'since'),
    until: timestamp(q.until, 'until'),
    actor: q.actor || undefined,
    key: q.key || undefined,
    op: q.op,
    promptId: q.promptId || undefined,
    limit: clamp(q.limit ?? 100, 1, 1000),
    offset: Math.max(0, q.offset ?? 0),
    before: q.before || undefined,
  };
}
