import path from 'node:path';
import t from 'tap';
import { createStderrLogger } from '../../kernel/logger.ts';
import { KnexAuditSink, PROBE_REUSE_MS } from '../../plugins/audit-sink/knex/knex-audit-sink.ts';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { ManualClock, tempDir } from '../helpers/service.ts';

const record = (id: string, at: string) => ({
  id,
  occurredAt: at,
  principal: { subject: 'alice', kind: 'Human' as const },
  operation: 'Sign' as const,
  resource: 'k',
  outcome: 'Success' as const,
  context: {},
  correlationId: `req-${id}`,
});

t.test(
  'readiness probes of the SQL audit sink: a caller looping /readyz makes ' +
    'at most one write a second; a recent stored record answers instead',
  async (t) => {
    const file = path.join(tempDir(), 'audit.db');
    const clock = new ManualClock(new Date('2026-06-01T00:00:00.000Z'));
    const sink = new KnexAuditSink(
      sqliteKnexSettings(file),
      0,
      clock,
      createStderrLogger('error', () => {}),
    );
    await sink.start();
    t.teardown(() => sink.stop());
    const file$ = new Database(file, { readonly: true });
    t.teardown(() => file$.close());
    const probed = () =>
      (file$.prepare('select checked_at from svc_audit_probe').get() as { checked_at: string } | undefined)?.checked_at;

    await sink.probe();
    t.equal(probed(), '2026-06-01T00:00:00.000Z', 'the first probe writes');
    for (let i = 0; i < 111; i++) {
      clock.advance(9);
      await sink.probe();
    }
    t.equal(probed(), '2026-06-01T00:00:00.000Z', 'a hundred probes in the 999 ms after it write nothing');
    clock.advance(1);
    await sink.probe();
    t.equal(probed(), '2026-06-01T00:00:01.000Z', 'a second after the last write, the probe writes again');

    clock.advance(2 * PROBE_REUSE_MS);
    await sink.write(record('r1', clock.now().toISOString()));
    clock.advance(PROBE_REUSE_MS / 2);
    await sink.probe();
    t.equal(
      probed(),
      '2026-06-01T00:00:01.000Z',
      'an audit record stored half a second ago shows the store can be written',
    );
  },
);
