import knexFactory from 'knex';
import t from 'tap';
import { freshDatabase } from '../helpers/databases.ts';
import { privatePostgres } from '../helpers/private-postgres.ts';
import { startTestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

/**
 * The audit readers have two connections each. Reads beyond two wait for one of them: that is a queue,
 * not an outage, so they must not answer 503 "the audit database is unreachable" once they have waited
 * `database.acquireTimeoutMs` (here 500 ms), as a fuzz run on PostgreSQL saw for a scan and a verify.
 */
t.test(
  "postgresql: audit reads queued behind a reader's busy connections wait their turn instead of answering 503",
  async (t) => {
    const db = await freshDatabase(t, 'postgresql');
    if (!db) return;
    const service = await startTestService({ ...db.env, SVC_DB_ACQUIRE_TIMEOUT_MS: '500' });
    t.teardown(() => service.stop());
    const api = service.client('auditor');
    t.equal((await api.get('/v1/audit?limit=1')).status, 200, 'the reader is up');

    // Another session holds the audit table, so the reader's two connections wait on it with their queries.
    const admin = knexFactory({
      client: 'pg',
      connection: process.env.SVC_TEST_PG_ADMIN_URL!.replace(
        /\/[^/]+$/,
        `/${new URL(db.url.replace(/^jdbc:postgresql:/, 'http:')).pathname.slice(1)}`,
      ),
    });
    t.teardown(() => admin.destroy());
    const tx = await admin.transaction();
    await tx.raw('lock table svc_audit in access exclusive mode');
    const reads = Array.from({ length: 6 }, (_, i) => api.get(`/v1/audit?limit=5&offset=${i}`));
    const waiting = async () =>
      Number(
        (
          await admin.raw(
            "select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%svc_audit%'",
          )
        ).rows[0].n,
      );
    await until(async () => (await waiting()) >= 2, 'both reader connections waiting on the lock');
    // The four other reads now wait for a connection; hold on until they have waited past the acquire timeout.
    await new Promise((r) => setTimeout(r, 1500));
    await tx.commit();
    const statuses = (await Promise.all(reads)).map((r) => r.status);
    t.same(statuses, [200, 200, 200, 200, 200, 200], 'every read answered once the table was free');
  },
);

t.test('postgresql: with the database down, an audit read still answers 503 at once, not after queueing', async (t) => {
  const pg = privatePostgres(t);
  if (!pg) return;
  const service = await startTestService({ ...pg.env, SVC_DB_ACQUIRE_TIMEOUT_MS: '1000' });
  t.teardown(() => service.stop());
  const api = service.client('auditor');
  t.equal((await api.get('/v1/audit?limit=1')).status, 200, 'the reader is up');
  pg.down();
  t.teardown(() => pg.up());
  const began = Date.now();
  const during = await api.get('/v1/audit?limit=1');
  t.equal(during.status, 503);
  t.equal(during.body.error, 'ServiceUnavailable');
  t.ok(
    Date.now() - began < 30_000,
    `answered in ${Date.now() - began} ms, well before a queued read would give up (60 s)`,
  );
});
