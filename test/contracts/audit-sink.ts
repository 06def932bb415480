import type { Test } from 'tap';
import type { AuditRecord } from '../../kernel/model/index.ts';
import type { AuditSink } from '../../kernel/ports/audit-sink.ts';

const row = (at: string, actor: string, operation: string, resource: string, n: number): AuditRecord => ({
  id: `rec-${n}`,
  occurredAt: at,
  principal: { subject: actor, kind: 'Human' },
  operation,
  resource,
  outcome: n % 2 ? 'Success' : 'IllegalOperation',
  context: { n: String(n), 'source.ip': '127.0.0.1' },
  correlationId: `req-${n}`,
});

/**
 * The conformance suite every queryable audit sink passes. `open` gives a started sink over empty storage
 * whose clock reads `now`; `retentionDays` is the sink's setting.
 */
export function auditSinkContract(t: Test, open: () => Promise<AuditSink & { prune?(): Promise<number> }>, now: Date, retentionDays: number): void {
  t.test('records read back newest first, with every field', async (t) => {
    const sink = await open();
    for (let i = 0; i < 5; i++) await sink.write(row(`2026-01-01T00:00:0${i}.000Z`, 'ann', 'Sign', 'k1', i));
    const page = await sink.query!({ limit: 10, offset: 0 });
    t.same(page.records.map((r) => r.correlationId), ['req-4', 'req-3', 'req-2', 'req-1', 'req-0']);
    t.same(page.records[0], row('2026-01-01T00:00:04.000Z', 'ann', 'Sign', 'k1', 4));
    t.equal(page.hasMore, false);
    await sink.stop?.();
  });

  t.test('filters combine with AND; since inclusive, until exclusive; limit+1 gives hasMore', async (t) => {
    const sink = await open();
    await sink.write(row('2026-01-01T00:00:01.000Z', 'ann', 'Sign', 'k1', 1));
    await sink.write(row('2026-01-01T00:00:02.000Z', 'bob', 'Sign', 'k1', 2));
    await sink.write(row('2026-01-01T00:00:03.000Z', 'ann', 'Encrypt', 'k2', 3));
    await sink.write(row('2026-01-01T00:00:04.000Z', 'ann', 'Sign', 'k2', 4));
    const q = (extra: object) => sink.query!({ limit: 10, offset: 0, ...extra }).then((p) => p.records.map((r) => r.correlationId));
    t.same(await q({ actor: 'ann', op: 'Sign' }), ['req-4', 'req-1']);
    t.same(await q({ key: 'k2' }), ['req-4', 'req-3']);
    t.same(await q({ since: '2026-01-01T00:00:02.000Z', until: '2026-01-01T00:00:04.000Z' }), ['req-3', 'req-2']);
    const page = await sink.query!({ limit: 2, offset: 1 });
    t.same(page.records.map((r) => r.correlationId), ['req-3', 'req-2']);
    t.equal(page.hasMore, true);
    await sink.stop?.();
  });

  t.test('retention prunes rows strictly earlier than the cutoff', async (t) => {
    const sink = await open();
    const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
    await sink.write(row(new Date(cutoff.getTime() - 1).toISOString(), 'old', 'Sign', 'k', 1));
    await sink.write(row(cutoff.toISOString(), 'edge', 'Sign', 'k', 2));
    await sink.write(row(now.toISOString(), 'new', 'Sign', 'k', 3));
    t.equal(await sink.prune!(), 1);
    const left = await sink.query!({ limit: 10, offset: 0 });
    t.same(left.records.map((r) => r.principal.subject), ['new', 'edge']);
    await sink.stop?.();
  });
}
