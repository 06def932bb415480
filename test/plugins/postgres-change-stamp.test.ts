import { createServer } from 'node:net';
import pg from 'pg';
import t from 'tap';
import { KnexJournal } from '../../plugins/journal/knex/knex-journal.ts';
import { serverConnection } from '../../plugins/sql-support/connection-url.ts';
import { LISTENER_NAME, PostgresChangeStamp } from '../../plugins/sql-support/postgres-change-stamp.ts';
import { serverKnexSettings } from '../../plugins/sql-support/server-connection.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { until } from '../helpers/until.ts';

const HAND_MADE_KEY = '00000000-0000-4000-8000-0000000051a1';
const at = '2026-01-01T00:00:00.000Z';
const handMadeKey = {
  type: 'KeyCreated',
  at,
  spec: { name: 'hand-made', algorithm: 'AES', sizeBits: 256, objectType: 'SymmetricKey', exportable: false },
  by: 'sql',
  materialId: 'm1',
};

/** A port nothing listens on: taken from the OS, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

t.test('a stamp that cannot reach its database vouches for nothing, and stops retrying once closed', async (t) => {
  const stamp = new PostgresChangeStamp({
    host: '127.0.0.1',
    port: await closedPort(),
    user: 'nobody',
    database: 'none',
    connectionTimeoutMillis: 1000,
  });
  await stamp.listen();
  t.equal(stamp.read(), undefined, 'not listening: every use of a cached key is checked with a query');
  stamp.close();
  t.equal(stamp.read(), undefined);
});

t.test('notified key changes on PostgreSQL', async (t) => {
  const db = await freshDatabase(t, 'postgresql');
  if (!db) return;
  const connection = serverConnection(db.url, 'postgresql', db.user, db.password);
  const settings = serverKnexSettings('postgresql', connection, {
    max: 2,
    acquireTimeoutMs: 3000,
    bootTimeoutMs: 10000,
  });
  const admin = new pg.Client(connection);
  await admin.connect();
  const notifyTrigger = async () =>
    (
      await admin.query(
        `select tgenabled from pg_trigger where tgname = 'svc_key_events_notify' and tgrelid = 'svc_key_events'::regclass`,
      )
    ).rows[0]?.tgenabled as string | undefined;
  const checked = new KnexJournal(settings);
  await checked.start();
  t.equal(
    checked.changeStamp(),
    undefined,
    'a journal left on the default (checked) has no stamp: every use asks lastSeq',
  );
  t.equal(await notifyTrigger(), undefined, 'and a database only checked journals use has no trigger to notify');
  await checked.stop();
  // Short timing, so that a trigger gone silent shows within the test.
  const timing = { heartbeatMs: 50, trustMs: 300 };
  const journal = new KnexJournal({
    ...settings,
    changeStamp: () => PostgresChangeStamp.listening(settings, undefined, timing),
  });
  await journal.start();
  t.equal(
    await notifyTrigger(),
    'A',
    'the first notified journal installs the trigger, enabled always (restores, replicas)',
  );
  t.teardown(async () => {
    await journal.stop();
    await admin.end();
  });
  const stamp = () => journal.changeStamp();

  t.test('a key event written by any hand (SQL, an older node) moves the stamp', async (t) => {
    const before = stamp();
    t.type(before, 'number', 'listening: the stamp vouches');
    await admin.query(
      `insert into svc_key_events (key_id, seq, type, payload, occurred_at) values ($1, 1, 'KeyCreated', $2, $3)`,
      [HAND_MADE_KEY, JSON.stringify(handMadeKey), at],
    );
    await until(() => stamp() !== before, 'the notification of a hand-made insert');
    t.type(stamp(), 'number');
  });

  t.test("probes, its own and another process's, keep it vouching past trustMs without moving it", async (t) => {
    const other = await PostgresChangeStamp.listening(settings, undefined, timing);
    t.teardown(() => other.close());
    t.type(other.read(), 'number', 'a stamp vouches once its first probe came back');
    const before = stamp();
    t.type(before, 'number');
    const start = performance.now();
    const seen = new Set<number | undefined>();
    // Several heartbeats of both, and longer than trustMs: a stamp that heard no probe of its own would lapse.
    await until(() => {
      seen.add(stamp());
      return performance.now() - start > 3 * timing.trustMs;
    }, 'three trust periods to pass');
    t.same([...seen], [before], 'the same number throughout, never undefined');
  });

  t.test(
    'a trigger removed behind its back: the stamp stops vouching, and vouches again once it is back',
    async (t) => {
      const before = stamp();
      t.type(before, 'number');
      await admin.query('drop trigger svc_key_events_notify on svc_key_events');
      await until(() => stamp() === undefined, 'the silence to be noticed (trustMs)');
      t.pass('no notification heard within trustMs: every use is checked');
      await until(() => stamp() !== undefined, 'listening again');
      t.equal(await notifyTrigger(), 'A', 'the new connection put the trigger back');
      const again = stamp();
      await admin.query('truncate svc_key_events');
      await until(() => stamp() !== again, 'the notification of a TRUNCATE');
      t.type(stamp(), 'number', 'a TRUNCATE notifies too');
    },
  );

  t.test(
    'a lost notification connection vouches for nothing until it listens again, then at a new number',
    async (t) => {
      const before = stamp();
      t.type(before, 'number');
      const killed = await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and application_name = $1`,
        [LISTENER_NAME],
      );
      t.equal(killed.rowCount, 1, 'the one listening session was ended');
      await until(() => stamp() !== before, 'the loss to be noticed');
      await until(() => stamp() !== undefined, 'listening again');
      t.not(stamp(), before, 'nothing confirmed before the loss counts after it: changes meanwhile were not heard');
      const again = stamp();
      await admin.query(
        `insert into svc_key_events (key_id, seq, type, payload, occurred_at) values ($1, 2, 'KeyActivated', '{}', $2)`,
        ['00000000-0000-4000-8000-0000000051a1', '2026-01-01T00:00:00.000Z'],
      );
      await until(() => stamp() !== again, 'a notification on the new connection');
      t.type(stamp(), 'number', 'and it hears commits again');
    },
  );
});
