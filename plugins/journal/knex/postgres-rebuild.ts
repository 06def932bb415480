import type { Knex } from 'knex';
import type { ScrubOutcome } from './scrub-outcome.ts';

/**
 * How long a rebuild of the KWK table may wait for its lock. A rebuild needs an exclusive lock, and
 * every create and uncached encrypt that touches the table queues behind a rebuild that is waiting
 * for one: so it gives up quickly and is tried again later, instead of stalling every caller.
 */
export const LOCK_WAIT_MS = 50;
/** Bound on the rebuild itself (it holds the exclusive lock meanwhile); the KWK table is one small row per key. */
export const REBUILD_MS = 10_000;

interface Horizon {
  frozen: string;
  toast: string | null;
  vacuums: string;
}

/**
 * VACUUM FULL rewrites svc_key_kwk into a new file and drops the old one, but it copies a deleted row
 * that a snapshot older than the delete can still see (a long transaction, pg_dump). Whether it did is
 * read from the table's relfrozenxid, which the rebuild sets to the oldest transaction any snapshot
 * could still need (or later): every transaction id in the new file is at least that or frozen, and a
 * committed delete cannot be frozen, so a delete whose transaction precedes it left nothing behind.
 * The deletes are the transactions that recorded the erasure tasks (`deletedBy`, their xmin: a task is
 * recorded in the delete's transaction). This needs no privilege beyond the table's own and, unlike
 * VACUUM VERBOSE's report, does not depend on the language of the server's messages (lc_messages).
 *
 * A plain VACUUM (autovacuum) that ran between the rebuild and the check could advance relfrozenxid
 * past a delete whose row it only pruned (its bytes can stay in the page), so the check counts the
 * table's vacuums around it and retries if one ran. lock_timeout bounds the wait for the exclusive
 * lock, statement_timeout the rewrite; a cancelled rebuild leaves the old file, and is retried.
 */
export async function rebuildPostgres(knex: Knex, conn: unknown, deletedBy: string[]): Promise<ScrubOutcome> {
  const before = await horizon(knex, conn);
  try {
    await knex.raw(`set lock_timeout = ${LOCK_WAIT_MS}`).connection(conn);
    await knex.raw(`set statement_timeout = ${REBUILD_MS}`).connection(conn);
    await knex.raw('vacuum full svc_key_kwk').connection(conn);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === '55P03')
      return { complete: false, reason: 'another session holds a lock on svc_key_kwk; the rebuild is retried' };
    if (code === '57014')
      return { complete: false, reason: `the rebuild of svc_key_kwk took longer than ${REBUILD_MS} ms; retried` };
    throw err;
  } finally {
    await knex
      .raw('reset lock_timeout')
      .connection(conn)
      .catch(() => {});
    await knex
      .raw('reset statement_timeout')
      .connection(conn)
      .catch(() => {});
  }
  const after = await horizon(knex, conn);
  // Read once more: a VACUUM reports its count just after it sets relfrozenxid.
  const vacuumed = (await horizon(knex, conn)).vacuums;
  if (after.vacuums !== before.vacuums || vacuumed !== before.vacuums)
    return {
      complete: false,
      reason: 'a VACUUM of svc_key_kwk ran beside the rebuild, so the rebuild cannot be checked; retried',
    };
  const kept = deletedBy.filter(
    (xid) => !precedes(xid, after.frozen) || (after.toast !== null && !precedes(xid, after.toast)),
  );
  if (kept.length > 0)
    return {
      complete: false,
      reason:
        'VACUUM FULL had to keep deleted rows of svc_key_kwk that an older ' +
        'snapshot can still see (a long transaction or a backup); retried',
    };
  return { complete: true };
}

/** The rebuilt table's (and its TOAST table's) relfrozenxid, and how many times it was vacuumed. */
async function horizon(knex: Knex, conn: unknown): Promise<Horizon> {
  const result = (await knex
    .raw(
      `select c.relfrozenxid::text as frozen, t.relfrozenxid::text as toast,
            (pg_stat_get_vacuum_count(c.oid) + pg_stat_get_autovacuum_count(c.oid))::text as vacuums
       from pg_class c left join pg_class t on t.oid = c.reltoastrelid
      where c.oid = 'svc_key_kwk'::regclass`,
    )
    .connection(conn)) as { rows: Horizon[] };
  return result.rows[0]!;
}

/** PostgreSQL's TransactionIdPrecedes: 32-bit transaction ids compared modulo 2^32. */
export function precedes(a: string, b: string): boolean {
  return ((Number(a) - Number(b)) | 0) < 0;
}
