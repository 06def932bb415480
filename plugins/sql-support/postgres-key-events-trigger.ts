import type pg from 'pg';

/** The channel the trigger notifies at the commit of every transaction that writes key events. */
export const KEY_EVENTS_CHANNEL = 'svc_key_events';

/** A probe's notification payload begins with this; every other notification (payload '') is a key event. */
export const PROBE_PREFIX = 'probe:';

/**
 * A transaction that fires the trigger and changes nothing (a statement trigger runs even when no row matches),
 * marked so that its notification reads `probe:<id>`. It needs only the INSERT and SELECT the journal has.
 */
export const probeStatement = (id: string): string =>
  `begin; select set_config('svc.key_events_probe', '${PROBE_PREFIX}${id.replace(/[^a-z0-9-]/gi, '')}', true); ` +
  'insert into svc_key_events select * from svc_key_events where false; commit';

/**
 * Installs (or repairs) the statement trigger on svc_key_events that notifies KEY_EVENTS_CHANNEL, as the first
 * node with notified key changes starts: a deployment that never chooses them never takes PostgreSQL's
 * notification lock on its key writes. ENABLE ALWAYS makes it fire for replication and restores as well
 * (session_replication_role = replica), TRUNCATE included; the function resolves nothing through the caller's
 * search_path. Nodes starting together take turns on an advisory lock, and once the trigger is in place a node
 * changes nothing (the DDL's lock would hold up key writes); a lock wait is bounded. Installing needs the
 * journal's tables to belong to the connecting role, as the migrations do.
 */
export async function installKeyEventsTrigger(client: pg.Client): Promise<void> {
  await client.query('begin');
  try {
    await client.query("set local lock_timeout = '2s'");
    await client.query("select pg_advisory_xact_lock(hashtext('svc_key_events_notify'))");
    const { rows } = await client.query(
      "select tgenabled from pg_trigger where tgname = 'svc_key_events_notify' and tgrelid = 'svc_key_events'::regclass",
    );
    if (rows[0]?.tgenabled !== 'A') {
      await client.query(`create or replace function svc_key_events_notify() returns trigger
        language plpgsql set search_path = pg_catalog as $$
        begin perform pg_notify('${KEY_EVENTS_CHANNEL}', coalesce(current_setting('svc.key_events_probe', true), ''));
        return null; end $$`);
      await client.query('drop trigger if exists svc_key_events_notify on svc_key_events');
      await client.query(`create trigger svc_key_events_notify
        after insert or update or delete or truncate on svc_key_events
        for each statement execute function svc_key_events_notify()`);
      await client.query('alter table svc_key_events enable always trigger svc_key_events_notify');
    }
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  }
}
