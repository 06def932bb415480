import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import type { AuditEvent } from '../../kernel/audit/canonical-event.ts';
import { appendLines } from '../../kernel/audit/dead-letter-append.ts';
import { ThreadedFanout } from '../../kernel/audit/fanout-thread.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { tempDir } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

const quiet = createStderrLogger('error', () => {});
const STALLED = pathToFileURL(path.resolve(import.meta.dirname, '../fixtures/stalled-fanout-thread.ts'));
const event = (n: number): AuditEvent => ({
  schemaVersion: 1,
  id: `rec-${n}`,
  occurredAt: '2026-01-01T00:00:00.000Z',
  node: 'n1',
  principal: { subject: 'x', kind: 'Human' },
  operation: 'Sign',
  resource: `k${n}`,
  outcome: 'Success',
  context: {},
  correlationId: `r${n}`,
});
const lines = (file: string): Array<{ event: AuditEvent; sink: string; error: string; attempts: number }> =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

t.test(
  'a thread that takes nothing holds at most a queue of events on the ' +
    'request loop; the rest, and at shutdown all, go to the dead letter once each',
  async (t) => {
    const deadLetterFile = path.join(tempDir(), 'dlq', 'stalled.jsonl');
    const counts: Record<string, number> = {};
    const fanout = await ThreadedFanout.start(STALLED, { deadLetterFile, queueCapacity: 10 }, quiet, {
      counted: (_s, result, n) => void (counts[result] = (counts[result] ?? 0) + n),
    });
    for (let i = 0; i < 25; i++) fanout.offer(event(i));
    await until(() => lines(deadLetterFile).length === 15, 'the 15 events beyond the capacity dead-lettered');
    t.same(
      lines(deadLetterFile).map((l) => l.event.id),
      Array.from({ length: 15 }, (_, i) => `rec-${i + 10}`),
      'the newest ones, as a full queue does',
    );
    t.match(lines(deadLetterFile)[0], {
      sink: 'stalled',
      error: 'queue full: the audit fan-out thread is behind',
      attempts: 0,
      event: event(10),
    });
    await fanout.stop();
    const all = lines(deadLetterFile);
    t.equal(all.length, 25, 'the 10 it held went to the dead letter at shutdown');
    t.same(new Set(all.map((l) => l.event.id)).size, 25, 'each event once');
    t.same(
      all.slice(15).map((l) => l.error),
      Array(10).fill('not delivered before shutdown'),
    );
    t.same(counts, { dead_lettered: 25 });
    fanout.offer(event(99));
    await fanout.stop();
    t.match(
      lines(deadLetterFile).at(-1),
      { event: { id: 'rec-99' }, error: 'offered after shutdown began' },
      'an event after shutdown began is not dropped',
    );
  },
);

t.test('a thread that does not start its sinks fails the start with its reason', async (t) => {
  const missing = pathToFileURL(path.resolve(import.meta.dirname, '../fixtures/no-such-thread.ts'));
  await t.rejects(ThreadedFanout.start(missing, {}, quiet), /audit fan-out thread: .*no-such-thread/);
});

t.test(
  'a thread that dies with events it had not taken: stopping before the ' +
    'restart starts no thread and dead-letters them once',
  async (t) => {
    const deadLetterFile = path.join(tempDir(), 'dlq', 'crashing.jsonl');
    const logged: string[] = [];
    const logger = { ...quiet, error: (msg: string) => void logged.push(msg), info: () => {}, warn: () => {} };
    const fanout = await ThreadedFanout.start(
      STALLED,
      { deadLetterFile, queueCapacity: 10, crashOnEvents: true },
      logger,
    );
    for (let i = 0; i < 3; i++) fanout.offer(event(i));
    await until(() => logged.some((m) => m.includes('the audit fan-out thread ended')), 'the thread to die');
    t.match((await fanout.health())['audit-fanout-thread'], {
      ok: false,
      detail: /restarting \(it threw: the thread fell over\)/,
    });
    await fanout.stop();
    t.same(
      lines(deadLetterFile).map((l) => [l.event.id, l.error]),
      [0, 1, 2].map((i) => [`rec-${i}`, 'not delivered before shutdown']),
      'the three it never took, once each',
    );
    t.notOk(
      logged.some((m) => m.includes('did not start again')),
      'no restart was tried after stop',
    );
    await t.rejects(fanout.replayDeadLetters(), /stopping/, 'a replay after stop is refused, not left waiting');
  },
);

t.test('dead-letter lines are appended whole and in order, in chunks', async (t) => {
  const file = path.join(tempDir(), 'lines.jsonl');
  const many = Array.from({ length: 500 }, (_, i) => `${JSON.stringify({ n: i, pad: 'x'.repeat(400) })}\n`);
  await appendLines(file, many);
  t.same(readFileSync(file, 'utf8'), many.join(''));
});
