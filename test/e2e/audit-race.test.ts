import knexFactory from 'knex';
import t from 'tap';
import { serverConnection } from '../../plugins/sql-support/connection-url.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { startTestService } from '../helpers/service.ts';

t.test(
  'two nodes racing on one key: a change that lost the race is audited as refused, never as a success',
  async (t) => {
    const db = await freshDatabase(t, 'postgresql');
    if (!db) return;
    const a = await startTestService(db.env);
    const b = await startTestService(db.env);
    t.teardown(async () => {
      await a.stop();
      await b.stop();
    });
    const calls: Array<{ requestId: string; status: number }> = [];
    for (let i = 0; i < 12; i++) {
      const id = await a.client('ops').key({ algorithm: 'AES' });
      const rotate = `race-rotate-${i}`;
      const [r] = await Promise.all([
        a.client('ops').call('POST', `/v1/keys/${id}/rotate`, {}, { 'X-Request-Id': rotate }),
        b.client('ops').call('POST', `/v1/keys/${id}/compromise`, { reason: 'race' }),
      ]);
      calls.push({ requestId: rotate, status: r.status });
    }
    t.ok(
      calls.every((c) => c.status === 200 || c.status === 409),
      'each rotate either won or was refused',
    );
    const c = serverConnection(db.url, 'postgresql', db.user, db.password);
    const knex = knexFactory({
      client: 'pg',
      connection: { host: c.host, port: c.port, database: c.database, user: c.user, password: c.password },
    });
    t.teardown(() => knex.destroy());
    for (const call of calls) {
      const rows = await knex('svc_audit').where({ correlation_id: call.requestId }).select('outcome');
      t.same(
        rows.map((r: { outcome: string }) => r.outcome),
        [call.status === 200 ? 'Success' : 'IllegalOperation'],
        `${call.requestId} (${call.status}): exactly one record, and the right one`,
      );
    }
  },
);
