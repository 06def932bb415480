import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import type { AuditEvent } from '../../kernel/audit/canonical-event.ts';
import { FanoutQueue, PermanentDeliveryError, type DeliveryResult } from '../../kernel/audit/fanout.ts';
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
const settings = (dir: string, more = {}) => ({
  queueCapacity: 2,
  maxRetries: 3,
  initialBackoffMs: 1,
  maxBackoffMs: 4,
  deadLetterFile: path.join(dir, 'dlq', 'dead.jsonl'),
  batchSize: 1,
  concurrency: 1,
  ...more,
});
const deadLines = (dir: string) =>
  readFileSync(path.join(dir, 'dlq', 'dead.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const counter = () => {
  const counts: Record<string, number> = {};
  return {
    counts,
    counted: (_sink: string, result: DeliveryResult, n: number) => void (counts[result] = (counts[result] ?? 0) + n),
  };
};

t.test('transient failures are retried until delivered, and counted', async (t) => {
  let calls = 0;
  const delivered: string[] = [];
  const seen = counter();
  const q = new FanoutQueue(
    {
      name: 'flaky',
      deliver: async (e) => {
        if (++calls < 3) throw new Error('503');
        delivered.push(e.resource);
      },
    },
    settings(tempDir()),
    quiet,
    seen,
  );
  q.offer(event(1));
  await q.stop();
  t.same(delivered, ['k1']);
  t.equal(calls, 3);
  t.same(seen.counts, { retried: 2, delivered: 1 });
});

t.test(
  'a permanent failure goes to the dead letter at once; exhausted retries too, with the line format',
  async (t) => {
    const dir = tempDir();
    let calls = 0;
    const q = new FanoutQueue(
      {
        name: 'broken',
        deliver: async (e) => {
          calls++;
          if (e.resource === 'k1') throw new PermanentDeliveryError('400 bad request');
          throw new Error('timeout');
        },
      },
      settings(dir),
      quiet,
    );
    q.offer(event(1));
    q.offer(event(2));
    await q.stop();
    t.equal(calls, 1 + 4, 'no retry for the permanent one, 1 + 3 retries for the other');
    const lines = deadLines(dir);
    t.same(
      lines.map((l) => [l.event.resource, l.sink, l.error, l.attempts]),
      [
        ['k1', 'broken', '400 bad request', 1],
        ['k2', 'broken', 'timeout', 4],
      ],
    );
    t.same(lines[0].event, event(1), 'the whole canonical event');
    t.ok(!Number.isNaN(Date.parse(lines[0].failedAt)));
  },
);

t.test('a full queue dead-letters the overflow instead of blocking', async (t) => {
  const dir = tempDir();
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const q = new FanoutQueue({ name: 'slow', deliver: () => gate }, settings(dir), quiet);
  for (let i = 1; i <= 4; i++) q.offer(event(i));
  release();
  await q.stop();
  t.same(
    deadLines(dir).map((l) => [l.event.resource, l.error, l.attempts]),
    [['k4', 'queue full', 0]],
  );
});

t.test('batches go whole to deliverBatch, in order, and a failed batch holds back the ones behind it', async (t) => {
  const got: string[][] = [];
  let failOnce = true;
  const q = new FanoutQueue(
    {
      name: 'batched',
      deliver: async () => void t.fail('deliverBatch is used'),
      deliverBatch: async (events) => {
        if (failOnce) {
          failOnce = false;
          throw new Error('broker down');
        }
        got.push(events.map((e) => e.resource));
      },
    },
    settings(tempDir(), { queueCapacity: 100, batchSize: 3 }),
    quiet,
  );
  for (let i = 1; i <= 7; i++) q.offer(event(i));
  await q.stop();
  t.same(got.flat(), ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7'], 'every event, in order, after the retry');
  t.ok(got.every((b) => b.length <= 3));
});

t.test('health: failing while a delivery is retried, ok again once one succeeds', async (t) => {
  let fail = true;
  let attempts = 0;
  const q = new FanoutQueue(
    {
      name: 'h',
      deliver: async () => {
        attempts++;
        if (fail) throw new Error('connection refused');
      },
    },
    settings(tempDir(), { maxRetries: 1000, initialBackoffMs: 5, maxBackoffMs: 5 }),
    quiet,
  );
  t.same(q.health(), { ok: true });
  q.offer(event(1));
  while (attempts < 2) await new Promise((r) => setImmediate(r));
  t.match(q.health(), { ok: false, detail: /connection refused/ });
  fail = false;
  while (!q.health().ok) await new Promise((r) => setTimeout(r, 2));
  await q.stop();
  t.pass('recovered');
});

t.test('stop during backoff dead-letters the event in flight and what is queued: nothing lost', async (t) => {
  const dir = tempDir();
  const q = new FanoutQueue(
    {
      name: 'down',
      deliver: async () => {
        throw new Error('ECONNREFUSED');
      },
    },
    settings(dir, { queueCapacity: 10, maxRetries: 100, initialBackoffMs: 60_000, maxBackoffMs: 60_000 }),
    quiet,
  );
  q.offer(event(1));
  q.offer(event(2));
  await q.stop(20);
  t.same(
    deadLines(dir)
      .map((l) => [l.event.resource, l.error])
      .sort(),
    [
      ['k1', 'not delivered before shutdown'],
      ['k2', 'not delivered before shutdown'],
    ],
  );
});

t.test(
  'with several deliveries in flight, the events of one correlation still arrive one after another, in order',
  async (t) => {
    const arrived: string[] = [];
    const inFlightPerCorrelation = new Map<string, number>();
    let overlaps = 0;
    let concurrent = 0;
    let most = 0;
    let failOnce = true;
    const q = new FanoutQueue(
      {
        name: 'webhook-like',
        deliver: async (e) => {
          const n = (inFlightPerCorrelation.get(e.correlationId) ?? 0) + 1;
          inFlightPerCorrelation.set(e.correlationId, n);
          if (n > 1) overlaps++;
          most = Math.max(most, ++concurrent);
          await new Promise((r) => setTimeout(r, 1 + (Number(e.id.split('-')[1]) % 3)));
          concurrent--;
          inFlightPerCorrelation.set(e.correlationId, n - 1);
          if (e.id === 'rec-2' && failOnce) {
            failOnce = false;
            throw new Error('503'); // retried: the events of r2 behind it must wait for it
          }
          arrived.push(e.id);
        },
      },
      settings(tempDir(), { queueCapacity: 1000, concurrency: 4 }),
      quiet,
    );
    // 60 events over 5 correlations, interleaved.
    const offered = Array.from({ length: 60 }, (_, i) => ({ ...event(i), correlationId: `r${i % 5}` }));
    for (const e of offered) q.offer(e);
    await q.settled();
    await q.stop();
    t.equal(overlaps, 0, 'never two events of one correlation in flight at once');
    t.ok(most > 1, `several deliveries were in flight at once (${most})`);
    for (let c = 0; c < 5; c++) {
      const expected = offered.filter((e) => e.correlationId === `r${c}`).map((e) => e.id);
      t.same(
        arrived.filter((id) => expected.includes(id)),
        expected,
        `correlation r${c} in the order offered`,
      );
    }
    t.equal(arrived.length, 60, 'each delivered once');
  },
);
