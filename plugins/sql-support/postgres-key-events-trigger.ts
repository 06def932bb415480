import type pg from 'pg';

/** The channel the trigger notifies at the commit of every transaction that writes key events. */
export const KEY_EVENTS_CHANNEL = 'svc_key_events';

/** Fires the trigger and changes nothing: a statement trigger runs even when no row matches. */
export const PROBE_KEY_EVENTS_TRIGGER = 'update svc_key_events set seq = seq where false';

/**
 * Installs (or repairs) the statement trigger on svc_key_events that notifies KEY_EVENTS_CHANNEL, as the first
 * node with notified key changes starts: a deployment that never chooses them never takes PostgreSQL's
 * notification lock on its key writes. ENABLE ALWAYS makes it fire for replication and restores as well
 * (session_replication_role = replica), TRUNCATE included; the function resolves nothing through the caller's
 * search_path. Nodes starting together take turns on an advisory lock.
 */
export async function installKeyEventsTrigger(client: pg.Client): Promise<void> {
  await client.query('begin');
  try {
    await client.query("select pg_advisory_xact_lock(hashtext('svc_key_events_notify'))");
    await client.query(`create or replace function svc_key_events_notify() returns trigger
      language plpgsql set search_path = pg_catalog as $$
      begin perform pg_notify('${KEY_EVENTS_CHANNEL}', ''); return null; end $$`);
    await client.query(`create or replace trigger svc_key_events_notify
      after insert or update or delete or truncate on svc_key_events
      for each statement execute function svc_key_events_notify()`);
    await client.query('alter table svc_key_events enable always trigger svc_key_events_notify');
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  }
}
