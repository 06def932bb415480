import type { Knex } from 'knex';
import { type AuditPage, type AuditQuery, SvcError } from '../../../kernel/index.ts';
import { toRecord, type AuditRow } from './audit-chain.ts';

/**
 * A page cursor names the last row of a page by its place in the read order (occurred_at, then row id,
 * both descending). It is opaque to callers: base64url of `<occurred_at>|<id>`.
 */
const cursorOf = (row: AuditRow): string => Buffer.from(`${row.occurred_at}|${row.id}`).toString('base64url');

function parseCursor(cursor: string): { occurredAt: string; id: string } {
  const m = /^([0-9T:.Z+-]{1,32})\|([0-9]{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m || cursor.length > 100)
    throw new SvcError('InvalidField', 'before must be the next cursor of an earlier audit page');
  return { occurredAt: m[1]!, id: m[2]! };
}

/**
 * One page of the audit trail, newest first, filters ANDed. With `before` the page starts right after the
 * row that cursor names (a seek on the time index), so reading a long window page by page costs each
 * page its own rows only; `offset` alone skips rows one by one, which grows with every page.
 */
export async function queryAudit(db: Knex, q: AuditQuery): Promise<AuditPage> {
  const sql = db('svc_audit');
  if (q.since) sql.where('occurred_at', '>=', q.since);
  if (q.until) sql.where('occurred_at', '<', q.until);
  if (q.actor) sql.where('actor', q.actor);
  if (q.key) sql.where('resource', q.key);
  if (q.op) sql.where('operation', q.op);
  if (q.promptId) sql.where('prompt_id', q.promptId);
  if (q.before) {
    const at = parseCursor(q.before);
    // The first condition alone is a range on the time index; the second leaves out the rows of the
    // cursor's own instant that were already read.
    sql
      .where('occurred_at', '<=', at.occurredAt)
      .where((b) => b.where('occurred_at', '<', at.occurredAt).orWhere('id', '<', at.id));
  }
  const rows: AuditRow[] = await sql
    .orderBy([
      { column: 'occurred_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(q.limit + 1)
    .offset(q.offset);
  const hasMore = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  return { hasMore, records: page.map(toRecord), ...(hasMore ? { next: cursorOf(page.at(-1)!) } : {}) };
}
