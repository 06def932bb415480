import type { Test } from 'tap';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { AuditEvent, AuditFanoutSink } from '../kernel/index.ts';
import { AuditEventSchema } from '../kernel/index.ts';

export interface FanoutHarness {
  sink: AuditFanoutSink;
  /** What arrived at the sink's destination so far, as events (read with the destination's own means). */
  delivered(): Promise<AuditEvent[]>;
  /** Makes the destination unavailable, when the harness can (then `deliver` must throw, not hang or lie). */
  breakDestination?(): Promise<void>;
}

export const contractEvent = (n: number): AuditEvent => ({
  schemaVersion: 1,
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  node: 'contract-node',
  principal: { subject: 'fan', kind: 'Human' },
  operation: 'Sign',
  resource: `k${n}`,
  outcome: 'Success',
  context: { keyVersion: '1', 'source.ip': '127.0.0.1' },
  correlationId: `req-${n}`,
});

/**
 * The conformance suite every secondary (fan-out) audit sink passes, ours and third parties': a name fit
 * for a /readyz check, delivery of every event field for field and in order (singly and, where the sink
 * batches, in batches), events that still match the canonical schema at the destination, and a thrown
 * error, never a false success, when the destination fails.
 */
export function auditFanoutContract(t: Test, make: () => Promise<FanoutHarness>): void {
  const ajv = new Ajv({ strict: false });
  addFormats.default(ajv);
  const valid = ajv.compile(AuditEventSchema);

  t.test('has a name and delivers each event whole, in order', async (t) => {
    const h = await make();
    t.match(h.sink.name, /^[a-z0-9][a-z0-9-]*$/);
    await h.sink.start?.();
    for (let i = 1; i <= 5; i++) await h.sink.deliver(contractEvent(i));
    const got = (await h.delivered()).slice(-5);
    t.same(got, [1, 2, 3, 4, 5].map(contractEvent));
    t.ok(
      got.every((e) => valid(e)),
      'what arrives is a canonical event',
    );
    await h.sink.stop?.();
  });

  t.test('a batching sink delivers a batch whole and in order', async (t) => {
    const h = await make();
    if (!h.sink.deliverBatch) return t.pass('this sink delivers one event at a time');
    await h.sink.start?.();
    await h.sink.deliverBatch([6, 7, 8].map(contractEvent));
    t.same((await h.delivered()).slice(-3), [6, 7, 8].map(contractEvent));
    await h.sink.stop?.();
  });

  t.test('a destination that fails makes deliver throw (so the kernel retries or dead-letters)', async (t) => {
    const h = await make();
    if (!h.breakDestination) return t.pass('this harness cannot break its destination');
    await h.sink.start?.();
    await h.breakDestination();
    await t.rejects(h.sink.deliver(contractEvent(9)));
    await h.sink.stop?.();
  });
}
