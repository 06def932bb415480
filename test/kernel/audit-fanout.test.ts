import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { FanoutQueue, PermanentDeliveryError } from '../../kernel/audit/fanout.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import type { AuditRecord } from '../../kernel/model/index.ts';
import { tempDir } from '../helpers/service.ts';

const quiet = createStderrLogger('error', () => {});
const record = (n: number): AuditRecord => ({ id: `rec-${n}`, occurredAt: '2026-01-01T00:00:00.000Z', principal: { subject: 'x', kind: 'Human' }, operation: 'Sign', resource: `k${n}`, outcome: 'Success', context: {}, correlationId: `r${n}` });
const settings = (dir: string) => ({ queueCapacity: 2, maxRetries: 3, initialBackoffMs: 1, maxBackoffMs: 4, deadLetterFile: path.join(dir, 'dlq', 'dead.jsonl') });

t.test('transient failures are retried until delivered', async (t) => {
  let calls = 0;
  const delivered: string[] = [];
  const q = new FanoutQueue({ name: 'flaky', deliver: async (r) => { if (++calls < 3) throw new Error('503'); delivered.push(r.resource); } }, settings(tempDir()), quiet);
  q.offer(record(1));
  await q.stop();
  t.same(delivered, ['k1']);
  t.equal(calls, 3);
});

t.test('a permanent failure goes to the dead-letter file at once; exhausted retries too', async (t) => {
  const dir = tempDir();
  let calls = 0;
  const q = new FanoutQueue({ name: 'broken', deliver: async (r) => { calls++; if (r.resource === 'k1') throw new PermanentDeliveryError('400 bad request'); throw new Error('timeout'); } }, settings(dir), quiet);
  q.offer(record(1));
  q.offer(record(2));
  await q.stop();
  t.equal(calls, 1 + 4, 'no retry for the permanent one, 1 + 3 retries for the other');
  const lines = readFileSync(path.join(dir, 'dlq', 'dead.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  t.same(lines.map((l) => [l.record.resource, l.reason]), [['k1', '400 bad request'], ['k2', 'timeout']]);
});

t.test('a full queue dead-letters the overflow instead of blocking', async (t) => {
  const dir = tempDir();
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const q = new FanoutQueue({ name: 'slow', deliver: () => gate }, settings(dir), quiet);
  for (let i = 1; i <= 4; i++) q.offer(record(i));
  release();
  await q.stop();
  const dead = readFileSync(path.join(dir, 'dlq', 'dead.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  t.same(dead.map((l) => [l.record.resource, l.reason]), [['k4', 'queue full']]);
});
