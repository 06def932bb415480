import t from 'tap';
import { serverConnection } from '../../plugins/sql-support/connection-url.ts';
import { ApiClient } from '../helpers/client.ts';
import { privatePostgres } from '../helpers/private-postgres.ts';
import { startTestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

t.test(
  'PostgreSQL down: anonymous /readyz names the checks and "unavailable" ' +
    'only; the log and an authenticated Human have why',
  async (t) => {
    const pg = privatePostgres(t);
    if (!pg) return;
    const svc = await startTestService({ ...pg.env, SVC_DB_ACQUIRE_TIMEOUT_MS: '1000' });
    t.teardown(() => svc.stop());
    const anonymous = new ApiClient(svc.url);
    t.equal((await anonymous.get('/readyz')).status, 200);

    pg.down();
    await until(async () => (await anonymous.get('/readyz')).status === 503, 'readyz to notice the outage');
    const ready = await anonymous.get('/readyz');
    t.equal(ready.body.status, 'unready');
    t.same(ready.body.checks.journal, { ok: false, state: 'unavailable' }, 'the journal check: name and state');
    t.same(ready.body.checks.audit, { ok: false, state: 'unavailable' }, 'the audit check: name and state');
    const said = JSON.stringify(ready.body);
    const db = serverConnection(pg.url, 'postgresql', pg.env.SVC_JDBC_USERNAME!, pg.env.SVC_JDBC_PASSWORD!);
    for (const secret of [db.host, String(db.port), db.database, db.user])
      t.notOk(said.includes(secret), `anonymous answer does not name ${secret}`);
    t.notMatch(said, /select|insert|update|ECONN|connect|postgres|timeout/i, 'no SQL, driver error or database kind');

    const human = await svc.client('ops').get('/readyz');
    t.match(
      human.body.checks.journal,
      { ok: false, state: 'unavailable', detail: /\S/ },
      'an authenticated Human reads why',
    );
    const failures = svc.logs.filter((l) => l.includes('readiness check fails'));
    t.ok(
      failures.some((l) => l.includes('"check":"journal"') && l.includes('"detail"')),
      "the log has the journal check's detail",
    );
    t.equal(
      failures.filter((l) => l.includes('"check":"journal"')).length,
      new Set(failures.filter((l) => l.includes('"check":"journal"'))).size,
      'the same failure is logged once, not per poll',
    );

    pg.up();
    await until(async () => (await anonymous.get('/readyz')).status === 200, 'readyz to recover', 30_000);
    t.match((await anonymous.get('/readyz')).body.checks.journal, { ok: true, state: 'ok' });
  },
);
