import type { Knex } from 'knex';

/** Whether one scrub removed every deleted row from the database's own files, and if not, why not. */
export interface ScrubOutcome {
  complete: boolean;
  reason?: string;
}

/**
 * How long a rebuild of the KWK table may wait for its lock. A rebuild needs an exclusive lock, and
 * every create and uncached encrypt that touches the table queues behind a rebuild that is waiting
 * for one: so it gives up quickly and is tried again later, instead of stalling every caller.
 */
export const LOCK_WAIT_MS = 200;
/** Bound on the rebuild itself (it holds the exclusive lock meanwhile); the KWK table is one small row per key. */
export const REBUILD_MS = 10_000;

/**
 * One attempt to leave no copy of deleted KWK and material rows in the database's own files. Deleted
 * SQLite cells are zeroed at the delete (secure_delete); this moves the WAL into the file and empties it.
 * PostgreSQL keeps deleted tuples in heap pages until they are reused, and InnoDB until purged and
 * reused: both rebuild the small KWK table into new pages. Never waits long for a lock.
 */
export async function scrubStorage(knex: Knex): Promise<ScrubOutcome> {
  // The dialect's driver name: the SQLite client is given to knex as a class, not by name.
  const driver = (knex.client as { driverName: string }).driverName;
  const client = knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(conn: unknown): Promise<unknown> };
  const conn = await client.acquireConnection();
  try {
    if (driver === 'better-sqlite3') return await checkpointSqlite(conn as SqliteConnection);
    if (driver === 'pg') return await rebuildPostgres(knex, conn as PgConnection);
    return await rebuildMysql(knex, conn);
  } finally {
    await client.releaseConnection(conn);
  }
}

interface SqliteConnection {
  pragma(source: string, options?: { simple?: boolean }): unknown;
}

/**
 * A truncating checkpoint copies every WAL frame into journal.db and empties the WAL, where the frames
 * written before the delete still hold the KWK. A reader of the WAL (`sqlite3 .backup`, a long read)
 * keeps it from finishing: SQLite then reports busy instead of an error, so the result row is checked.
 * The busy timeout is 0 meanwhile: the driver is synchronous, and waiting here would stall every request.
 */
function checkpointSqlite(conn: SqliteConnection): ScrubOutcome {
  const previous = conn.pragma('busy_timeout', { simple: true });
  conn.pragma('busy_timeout = 0');
  let row: { busy: number; log: number; checkpointed: number } | undefined;
  try {
    row = (conn.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number; log: number; checkpointed: number }>)[0];
  } catch (err) {
    if ((err as { code?: string }).code !== 'SQLITE_BUSY' && (err as { code?: string }).code !== 'SQLITE_LOCKED') throw err;
  } finally {
    conn.pragma(`busy_timeout = ${Number(previous)}`);
  }
  if (!row || row.busy !== 0) return { complete: false, reason: "a reader holds journal.db's WAL (a backup or a long read); the checkpoint is retried until it lets go" };
  // log -1: the journal is not in WAL mode, so there is no WAL to empty.
  if (row.log > 0 && row.checkpointed < row.log) return { complete: false, reason: `the checkpoint moved ${row.checkpointed} of ${row.log} WAL frames; retried` };
  return { complete: true };
}

interface PgConnection {
  on(event: 'notice', listener: (notice: { message?: string; detail?: string }) => void): void;
  off(event: 'notice', listener: (notice: { message?: string; detail?: string }) => void): void;
}

/**
 * VACUUM FULL rewrites svc_key_kwk into a new file and drops the old one, but it copies a deleted row
 * that a snapshot older than the delete can still see (a long transaction, pg_dump): its VERBOSE report
 * counts those, so the erase is complete only when it kept none. lock_timeout bounds the wait for the
 * exclusive lock, statement_timeout the rewrite; a cancelled rebuild leaves the old file, and is retried.
 */
async function rebuildPostgres(knex: Knex, conn: PgConnection): Promise<ScrubOutcome> {
  const reports: string[] = [];
  const listen = (notice: { message?: string; detail?: string }) => reports.push(`${notice.message ?? ''}\n${notice.detail ?? ''}`);
  conn.on('notice', listen);
  try {
    await knex.raw(`set lock_timeout = ${LOCK_WAIT_MS}`).connection(conn);
    await knex.raw(`set statement_timeout = ${REBUILD_MS}`).connection(conn);
    await knex.raw('vacuum (full, verbose) svc_key_kwk').connection(conn);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === '55P03') return { complete: false, reason: 'another session holds a lock on svc_key_kwk; the rebuild is retried' };
    if (code === '57014') return { complete: false, reason: `the rebuild of svc_key_kwk took longer than ${REBUILD_MS} ms; retried` };
    throw err;
  } finally {
    conn.off('notice', listen);
    await knex.raw('reset lock_timeout').connection(conn).catch(() => {});
    await knex.raw('reset statement_timeout').connection(conn).catch(() => {});
  }
  const kept = reports.map((r) => /(\d+) dead row versions cannot be removed yet/.exec(r)).filter((m) => m !== null);
  if (kept.length === 0) return { complete: false, reason: "VACUUM did not report the rows it kept (the server's lc_messages must be English); retried" };
  const dead = kept.reduce((sum, m) => sum + Number(m[1]), 0);
  if (dead > 0) return { complete: false, reason: `VACUUM kept ${dead} deleted row(s) of svc_key_kwk that an older snapshot can still see (a long transaction or a backup); retried` };
  return { complete: true };
}

/** InnoDB rebuilds the table for OPTIMIZE; lock_wait_timeout bounds its wait for the metadata lock. */
async function rebuildMysql(knex: Knex, conn: unknown): Promise<ScrubOutcome> {
  try {
    await knex.raw('set session lock_wait_timeout = 1').connection(conn);
    const [rows] = (await knex.raw('optimize table svc_key_kwk').connection(conn)) as [Array<{ Msg_type?: string; Msg_text?: string }>];
    const error = rows.find((r) => String(r.Msg_type).toLowerCase() === 'error');
    if (error) return { complete: false, reason: `OPTIMIZE TABLE svc_key_kwk failed (${error.Msg_text ?? 'no message'}); retried` };
    return { complete: true };
  } catch (err) {
    if ((err as { code?: string }).code === 'ER_LOCK_WAIT_TIMEOUT') return { complete: false, reason: 'another session holds a lock on svc_key_kwk; the rebuild is retried' };
    throw err;
  } finally {
    await knex.raw('set session lock_wait_timeout = default').connection(conn).catch(() => {});
  }
}
