import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { createStderrLogger } from '../../kernel/logger.ts';
import { systemClock } from '../../kernel/ports/clock.ts';
import { KnexAuditSink } from '../../plugins/audit-sink/knex/knex-audit-sink.ts';
import { READER_NICENESS } from '../../plugins/audit-sink/knex/reader-priority.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { tempDir } from '../helpers/service.ts';

/** The nice value of each thread of this process, by thread id (/proc/self/task/<tid>/stat, field 19). */
function threadNiceness(): Map<number, number> {
  const nice = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    nice.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return nice;
}

t.test('the audit reader thread yields the core: it runs at a lower priority, the request path\'s thread keeps its own', async (t) => {
  const before = threadNiceness();
  const sink = new KnexAuditSink(sqliteKnexSettings(path.join(tempDir(), 'audit.db')), 0, systemClock, createStderrLogger('error', () => {}), 'n');
  await sink.start();
  t.teardown(() => sink.stop());
  await sink.query!({ limit: 1, offset: 0 }); // the first read starts the reader thread
  const after = threadNiceness();
  const started = [...after].filter(([tid]) => !before.has(tid));
  t.ok(started.some(([, nice]) => nice === READER_NICENESS), `a new thread runs at nice ${READER_NICENESS} (new threads: ${JSON.stringify(started)})`);
  t.equal(after.get(process.pid), before.get(process.pid), 'the main thread keeps its priority');
});
