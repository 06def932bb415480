import path from 'node:path';
import t from 'tap';
import { createStderrLogger } from '../../kernel/logger.ts';
import { KnexAuditSink } from '../../plugins/audit-sink/knex/knex-audit-sink.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { auditSinkContract } from '../../contracts/audit-sink.ts';
import { ManualClock, tempDir } from '../helpers/service.ts';

const clock = new ManualClock(new Date('2026-06-01T00:00:00.000Z'));
let n = 0;
auditSinkContract(
  t,
  async () => {
    // A fresh file per case; retention 0 here so start() does not prune before the case writes its rows.
    const sink = new KnexAuditSink(
      sqliteKnexSettings(path.join(tempDir(), `audit-${++n}.db`)),
      30,
      clock,
      createStderrLogger('error', () => {}),
    );
    await sink.start();
    return sink;
  },
  clock.now(),
  30,
);
