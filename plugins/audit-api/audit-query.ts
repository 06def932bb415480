import { SvcError } from '../../kernel/errors.ts';
import { isOperation, type AuditQuery } from '../../kernel/model/index.ts';

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

function integer(value: string | undefined, field: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^-?\d+$/.test(value)) throw new SvcError('InvalidField', `${field} must be an integer`);
  return Number(value);
}

export function timestamp(value: string | undefined, field: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new SvcError('InvalidField', `${field} must be an ISO 8601 timestamp`);
  return new Date(t).toISOString();
}

/** Query string to AuditQuery (SPEC 4 "Audit read"): limit clamped to 1..1000, offset to 0 or more. */
export function parseAuditQuery(q: Record<string, string | undefined>): AuditQuery {
  if (q.op !== undefined && !isOperation(q.op)) throw new SvcError('InvalidField', `op must be an Operation name, not "${q.op}"`);
  return {
    since: timestamp(q.since, 'since'),
    until: timestamp(q.until, 'until'),
    actor: q.actor || undefined,
    key: q.key || undefined,
    op: q.op,
    limit: clamp(integer(q.limit, 'limit', 100), 1, 1000),
    offset: Math.max(0, integer(q.offset, 'offset', 0)),
  };
}
