import type { Test } from 'tap';
import type { AuditRecord } from '../kernel/model/index.ts';
import type { AuditFanoutSink } from '../kernel/ports/audit-sink.ts';

export interface FanoutHarness {
  sink: AuditFanoutSink;
  /** What arrived at the sink's destination so far, as records (read with the destination's own means). */
  delivered(): Promise<AuditRecord[]>;
  /** Makes the destination unavailable, when the harness can (then `deliver` must throw, not hang or lie). */
  breakDestination?(): Promise<void>;
}

const record = (n: number): AuditRecord => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  principal: { subject: 'fan', kind: 'Human' }, operation: 'Sign', resource: `k${n}`, outcome: 'Success', context: { keyVersion: '1', 'source.ip': '127.0.0.1' }, correlationId: `req-${n}`,
});

/**
 * The conformance suite every secondary (fan-out) audit sink passes: a name, delivery of every record
 * field for field and in order, and a thrown error, never a false success, when the destination fails.
 */
export function auditFanoutContract(t: Test, make: () => Promise<FanoutHarness>): void {
  t.test('has a name and delivers each record whole, in order', async (t) => {
    const h = await make();
    t.match(h.sink.name, /^[a-z0-9][a-z0-9-]*$/);
    await h.sink.start?.();
    for (let i = 1; i <= 5; i++) await h.sink.deliver(record(i));
    t.same((await h.delivered()).slice(-5), [1, 2, 3, 4, 5].map(record));
    await h.sink.stop?.();
  });

  t.test('a destination that fails makes deliver throw (so the kernel retries or dead-letters)', async (t) => {
    const h = await make();
    if (!h.breakDestination) return t.pass('this harness cannot break its destination');
    await h.sink.start?.();
    await h.breakDestination();
    await t.rejects(h.sink.deliver(record(9)));
    await h.sink.stop?.();
  });
}
