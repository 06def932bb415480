import t from 'tap';
import { StdoutAuditSink } from '../../plugins/audit-sink/stdout/stdout-sink.ts';

const record = (n: number) => ({
  id: 'rec-1',
  occurredAt: '2026-01-01T00:00:00.000Z',
  principal: { subject: 'erin', kind: 'Human' as const },
  operation: n === 0 ? 'Create' : 'Compromise',
  resource: `key-${n}`,
  outcome: 'Success',
  context: (n === 0 ? {} : { severity: 'Critical', reason: 'leak' }) as Record<string, string>,
  correlationId: `req-${n}`,
});

t.test('records written in one turn go out in one write, each acknowledged after it', async (t) => {
  const writes: string[] = [];
  const sink = new StdoutAuditSink((text) => void writes.push(text));
  await Promise.all([sink.write(record(0)), sink.write(record(1)), sink.write(record(2))]);
  t.equal(writes.length, 1);
  const lines = writes[0]!
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.match(lines[0], {
    ts: '2026-01-01T00:00:00.000Z',
    actor: 'erin',
    actorKind: 'Human',
    op: 'KeyCreated',
    keyId: 'key-0',
    outcome: 'Success',
    correlationId: 'req-0',
  });
  t.match(lines[1], { op: 'Compromise', severity: 'Critical', reason: 'leak' });
});

t.test('a failed write rejects every record of its batch (the primary sink fails closed)', async (t) => {
  const sink = new StdoutAuditSink(() => {
    throw new Error('EPIPE');
  });
  const results = await Promise.allSettled([sink.write(record(0)), sink.write(record(1))]);
  t.same(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
});
