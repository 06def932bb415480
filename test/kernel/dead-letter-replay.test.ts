import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import type { AuditEvent } from '../../kernel/audit/canonical-event.ts';
import { replayDeadLetters } from '../../kernel/audit/dead-letter-replay.ts';
import { FanoutQueue, PermanentDeliveryError } from '../../kernel/audit/fanout.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { tempDir } from '../helpers/service.ts';

const quiet = createStderrLogger('error', () => {});
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
const line = (e: AuditEvent) =>
  `${JSON.stringify({ event: e, sink: 'siem', error: 'webhook answered 500', attempts: 6, failedAt: '2026-01-01T00:00:01.000Z' })}\n`;

/** A sink that refuses the ids in `refuse` for good and keeps what it delivered, behind a queue of `capacity`. */
function sinkBehindQueue(dir: string, capacity = 100, refuse: string[] = []) {
  const delivered: string[] = [];
  const deliver = async (e: AuditEvent) => {
    if (refuse.includes(e.id)) throw new PermanentDeliveryError('400 bad request');
    delivered.push(e.id);
  };
  const file = path.join(dir, 'audit-siem.deadletter.jsonl');
  const queue = new FanoutQueue(
    { name: 'siem', deliver },
    {
      queueCapacity: capacity,
      maxRetries: 0,
      initialBackoffMs: 1,
      maxBackoffMs: 1,
      deadLetterFile: file,
      batchSize: 1,
      concurrency: 1,
    },
    quiet,
  );
  return { queue, delivered, file };
}

t.test("every dead-lettered event is delivered again, in the file's order, and the file is gone", async (t) => {
  const dir = tempDir();
  const { queue, delivered, file } = sinkBehindQueue(dir);
  writeFileSync(file, [1, 2, 3].map((n) => line(event(n))).join(''));
  const outcome = await replayDeadLetters(queue, quiet);
  t.same(outcome, { sink: 'siem', file, replayed: 3, delivered: 3, deadLettered: 0, unreadable: 0, untrusted: [] });
  t.same(delivered, ['rec-1', 'rec-2', 'rec-3']);
  t.same(readdirSync(dir), [], 'neither the dead-letter file nor the renamed one is left');
  t.same(
    await replayDeadLetters(queue, quiet),
    { sink: 'siem', file, replayed: 0, delivered: 0, deadLettered: 0, unreadable: 0, untrusted: [] },
    'a second replay finds nothing',
  );
});

t.test('what fails again is dead-lettered anew and counted; the rest is delivered', async (t) => {
  const dir = tempDir();
  const { queue, delivered, file } = sinkBehindQueue(dir, 100, ['rec-2']);
  writeFileSync(file, [1, 2, 3].map((n) => line(event(n))).join(''));
  const outcome = await replayDeadLetters(queue, quiet);
  t.match(outcome, { replayed: 3, delivered: 2, deadLettered: 1 });
  t.same(delivered, ['rec-1', 'rec-3']);
  const again = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.same(
    again.map((l) => [l.event, l.error]),
    [[event(2), '400 bad request']],
    'the whole event, with the new error',
  );
});

t.test('more events than the queue holds: offered a queue-full at a time, none overflows', async (t) => {
  const dir = tempDir();
  const { queue, delivered, file } = sinkBehindQueue(dir, 3);
  const events = Array.from({ length: 20 }, (_, i) => event(i));
  writeFileSync(file, events.map(line).join(''));
  t.match(await replayDeadLetters(queue, quiet), { replayed: 20, delivered: 20, deadLettered: 0 });
  t.same(
    delivered,
    events.map((e) => e.id),
  );
  t.notOk(existsSync(file), 'no "queue full" dead letter');
});

t.test('lines that are not dead-letter records are kept, unchanged, in .unreadable and counted', async (t) => {
  const dir = tempDir();
  const { queue, delivered, file } = sinkBehindQueue(dir);
  writeFileSync(file, `${line(event(1))}{"half a line\n\n{"event": {"no": "id"}}\n${line(event(2))}`);
  t.match(await replayDeadLetters(queue, quiet), { replayed: 2, delivered: 2, unreadable: 2 });
  t.same(delivered, ['rec-1', 'rec-2']);
  t.equal(readFileSync(`${file}.unreadable`, 'utf8'), '{"half a line\n{"event": {"no": "id"}}\n');
});

t.test(
  'a replay cut short leaves its renamed file; the next replay takes it up first and delivers an event once',
  async (t) => {
    const dir = tempDir();
    const { queue, delivered, file } = sinkBehindQueue(dir);
    writeFileSync(`${file}.replaying-1000`, [1, 2].map((n) => line(event(n))).join(''));
    writeFileSync(file, [2, 3].map((n) => line(event(n))).join(''));
    t.match(await replayDeadLetters(queue, quiet), { replayed: 3, delivered: 3 });
    t.same(delivered, ['rec-1', 'rec-2', 'rec-3']);
    t.same(readdirSync(dir), []);
  },
);
