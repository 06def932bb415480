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
const startedSince = (before: Map<number, number>) => [...threadNiceness()].filter(([tid]) => !before.has(tid));

t.test(
  'long reads yield the core: verification and advisor pages run on a ' +
    'low-priority reader thread; pages callers wait on and the request path ' +
    'keep theirs',
  async (t) => {
    const sink = new KnexAuditSink(
      sqliteKnexSettings(path.join(tempDir(), 'audit.db')),
      0,
      systemClock,
      createStderrLogger('error', () => {}),
      'n',
    );
    await sink.start();
    t.teardown(() => sink.stop());
    const mainBefore = threadNiceness().get(process.pid);

    let before = threadNiceness();
    await sink.query!({ limit: 1, offset: 0, background: true });
    const background = startedSince(before);
    t.ok(
      background.some(([, nice]) => nice === READER_NICENESS),
      `an advisor page: its reader runs at nice ${READER_NICENESS} (${JSON.stringify(background)})`,
    );
    before = threadNiceness();
    await sink.verify!({});
    t.same(startedSince(before), [], 'a verification runs on that same low-priority reader');

    before = threadNiceness();
    await sink.query!({ limit: 1, offset: 0 });
    const interactive = startedSince(before);
    t.ok(
      interactive.length > 0 && interactive.every(([, nice]) => nice === mainBefore),
      `a page a caller waits on: a reader of its own at the process's priority (${JSON.stringify(interactive)})`,
    );
    t.equal(threadNiceness().get(process.pid), mainBefore, 'the main thread keeps its priority');
  },
);
