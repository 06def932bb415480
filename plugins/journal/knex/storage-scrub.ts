import type { Knex } from 'knex';
import { rebuildPostgres } from './postgres-rebuild.ts';
import type { ScrubOutcome } from './scrub-outcome.ts';

/**
 * One attempt to leave no copy of deleted KWK and material rows in the database's own files. Deleted
 * SQLite cells are zeroed at the delete (secure_delete); this moves the WAL into the file and empties it.
 * PostgreSQL keeps deleted tuples in heap pages until they are reused, and InnoDB until purged and
 * reused: both rebuild the small KWK table into new pages. Never waits long for a lock. `deletedBy`
 * names, on PostgreSQL, the transactions whose deletes the attempt must have left no copy of.
 */
export async function scrubStorage(knex: Knex, deletedBy: string[]): Promise<ScrubOutcome> {
  // The dialect's driver name: the SQLite client is given to knex as a class, not by name.
  const driver = (knex.client as { driverName: string }).driverName;
  const client = knex.client as {
    acquireConnection(): Promise<unknown>;
    releaseConnection(conn: unknown): Promise<unknown>;
  };
  const conn = await client.acquireConnection();
  try {
    if (driver === 'better-sqlite3') return await checkpointSqlite(conn as SqliteConnection);
    if (driver === 'pg') return await rebuildPostgres(knex, conn, deletedBy);
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
    if ((err as { code?: string }).code !== 'SQLITE_BUSY' && (err as { code?: string }).code !== 'SQLITE_LOCKED')
      throw err;
  } finally {
    conn.pragma(`busy_timeout = ${Number(previous)}`);
  }
  if (row?.busy !== 0)
    return {
      complete: false,
      reason: "a reader holds journal.db's WAL (a backup or a long read); the checkpoint is retried until it lets go",
    };
  // log -1: the journal is not in WAL mode, so there is no WAL to empty.
  if (row.log > 0 && row.checkpointed < row.log)
    return { complete: false, reason: `the checkpoint moved ${row.checkpointed} of ${row.log} WAL frames; retried` };
  return { complete: true };
}

/** InnoDB rebuilds the table for OPTIMIZE; lock_wait_timeout bounds its wait for the metadata lock. */
async function rebuildMysql(knex: Knex, conn: unknown): Promise<ScrubOutcome> {
  try {
    await knex.raw('set session lock_wait_timeout = 1').connection(conn);
    const [rows] = (await knex.raw('optimize table svc_key_kwk').connection(conn)) as [
      Array<{ Msg_type?: string; Msg_text?: string }>,
    ];
    const error = rows.find((r) => String(r.Msg_type).toLowerCase() === 'error');
    if (error)
      return {
        complete: false,
        reason: `OPTIMIZE TABLE svc_key_kwk failed (${error.Msg_text ?? 'no message'}); retried`,
      };
    return { complete: true };
  } catch (err) {
    if ((err as { code?: string }).code === 'ER_LOCK_WAIT_TIMEOUT')
      return { complete: false, reason: 'another session holds a lock on svc_key_kwk; the rebuild is retried' };
    throw err;
  } finally {
    await knex
      .raw('set session lock_wait_timeout = default')
      .connection(conn)
      .catch(() => {});
  }
}
