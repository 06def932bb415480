import t from 'tap';
import { serverConnection } from '../../plugins/sql-support/connection-url.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { KnexAuditSink } from '../../plugins/audit-sink/knex/knex-audit-sink.ts';
import { serverKnexSettings } from '../../plugins/sql-support/server-connection.ts';
import { auditSinkContract } from '../../contracts/audit-sink.ts';
import { freshDatabase, type ServerKind } from '../helpers/databases.ts';
import { ManualClock } from '../helpers/service.ts';

const clock = new ManualClock(new Date('2026-06-01T00:00:00.000Z'));

// Spaced commits (audit.commitIntervalMs) change which records share an INSERT, never what is stored or in what order.
const variants = [
  { name: '', commitIntervalMs: 0 },
  { name: ', commits spaced 5 ms apart', commitIntervalMs: 5 },
];
for (const [kind, variant] of (['postgresql', 'mysql'] as ServerKind[]).flatMap((k) =>
  variants.map((v) => [k, v] as const),
)) {
  t.test(`${kind} audit sink passes the audit sink contract${variant.name}`, async (t) => {
    const open = async () => {
      // A fresh database per case, like the SQLite run.
      const db = (await freshDatabase(t, kind))!;
      const sink = new KnexAuditSink(
        serverKnexSettings(kind, serverConnection(db.url, kind, db.user, db.password), {
          max: 5,
          acquireTimeoutMs: 3000,
          bootTimeoutMs: 10000,
        }),
        30,
        clock,
        createStderrLogger('error', () => {}),
        undefined,
        undefined,
        { commitIntervalMs: variant.commitIntervalMs },
      );
      await sink.start();
      return sink;
    };
    if (!(await freshDatabase(t, kind))) return;
    auditSinkContract(t, open, clock.now(), 30);
  });
}
