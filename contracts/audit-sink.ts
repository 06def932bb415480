import type { Test } from 'tap';
import { AUDIT_BOUNDS, type AuditRecord, type AuditSink, boundRecord } from '../kernel/index.ts';

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
export function auditSinkContract(
  t: Test,
  open: () => Promise<AuditSink & { prune?(): Promise<number> }>,
  now: Date,
  retentionDays: number,
): void {
  t.test('records read back newest first, with every field', async (t) => {
    const sink = await open();
    for (let i = 0; i < 5; i++) await sink.write(row(`2026-01-01T00:00:0${i}.000Z`, 'ann', 'Sign', 'k1', i));
    const page = await sink.query!({ limit: 10, offset: 0 });
    t.same(
      page.records.map((r) => r.correlationId),
      ['req-4', 'req-3', 'req-2', 'req-1', 'req-0'],
    );
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
    const q = (extra: object) =>
      sink.query!({ limit: 10, offset: 0, ...extra }).then((p) => p.records.map((r) => r.correlationId));
    t.same(await q({ actor: 'ann', op: 'Sign' }), ['req-4', 'req-1']);
    t.same(await q({ key: 'k2' }), ['req-4', 'req-3']);
    t.same(await q({ since: '2026-01-01T00:00:02.000Z', until: '2026-01-01T00:00:04.000Z' }), ['req-3', 'req-2']);
    const page = await sink.query!({ limit: 2, offset: 1 });
    t.same(
      page.records.map((r) => r.correlationId),
      ['req-3', 'req-2'],
    );
    t.equal(page.hasMore, true);
    await sink.stop?.();
  });

  t.test(
    'promptId finds exactly the records whose context names that prompt, and combines with other filters',
    async (t) => {
      const sink = await open();
      const named = (n: number, at: string, promptId?: string) => ({
        ...row(at, n % 2 ? 'ann' : 'bob', 'Sign', 'k1', n),
        context: { n: String(n), ...(promptId ? { 'agent.promptId': promptId, 'agent.model': 'm-1' } : {}) },
      });
      await sink.write(named(1, '2026-01-01T00:00:01.000Z', 'p-1'));
      await sink.write(named(2, '2026-01-01T00:00:02.000Z', 'p-2'));
      await sink.write(named(3, '2026-01-01T00:00:03.000Z'));
      await sink.write(named(4, '2026-01-01T00:00:04.000Z', 'p-1'));
      await sink.write(named(5, '2026-01-01T00:00:05.000Z', 'p-10'));
      const q = (extra: object) =>
        sink.query!({ limit: 10, offset: 0, ...extra }).then((p) => p.records.map((r) => r.correlationId));
      t.same(await q({ promptId: 'p-1' }), ['req-4', 'req-1'], 'the exact prompt id, not a prefix');
      t.same(await q({ promptId: 'p-1', actor: 'bob' }), ['req-4']);
      t.same(await q({ promptId: 'P-1' }), [], 'case matters');
      t.same(await q({ promptId: 'none-such' }), []);
      t.same((await sink.query!({ limit: 10, offset: 0, promptId: 'p-2' })).records[0]!.context, {
        n: '2',
        'agent.promptId': 'p-2',
        'agent.model': 'm-1',
      });
      await sink.stop?.();
    },
  );

  t.test(
    'pages read on by their next cursor cover the trail once, newest first, rows of one instant included',
    async (t) => {
      const sink = await open();
      const at = [
        '2026-01-01T00:00:01.000Z',
        '2026-01-01T00:00:02.000Z',
        '2026-01-01T00:00:02.000Z',
        '2026-01-01T00:00:02.000Z',
        '2026-01-01T00:00:03.000Z',
        '2026-01-01T00:00:04.000Z',
        '2026-01-01T00:00:04.000Z',
      ];
      for (const [i, when] of at.entries()) await sink.write(row(when, i % 2 ? 'ann' : 'bob', 'Sign', 'k1', i));
      const all = (await sink.query!({ limit: 10, offset: 0 })).records.map((r) => r.correlationId);
      const seen: string[] = [];
      let before: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await sink.query!({ limit: 2, offset: 0, before });
        seen.push(...page.records.map((r) => r.correlationId));
        if (!page.hasMore) break;
        if (!page.next) return sink.stop?.(); // a sink that cannot seek pages by offset only
        before = page.next;
      }
      t.same(seen, all, 'the same rows in the same order as one long page');
      const first = await sink.query!({ limit: 3, offset: 0, actor: 'bob' });
      const rest = await sink.query!({ limit: 10, offset: 0, actor: 'bob', before: first.next });
      t.same(
        [...first.records, ...rest.records].map((r) => r.correlationId),
        ['req-6', 'req-4', 'req-2', 'req-0'],
        'a cursor and a filter combine',
      );
      await t.rejects(
        sink.query!({ limit: 2, offset: 0, before: 'not-a-cursor' }),
        { code: 'InvalidField' },
        'a cursor the sink did not give is refused',
      );
      await sink.stop?.();
    },
  );

  t.test('a record delivered twice (same id) is stored once', async (t) => {
    const sink = await open();
    const rec = row('2026-01-01T00:00:01.000Z', 'ann', 'Rotate', 'k1', 1);
    await sink.write(rec);
    await sink.write(rec);
    t.equal((await sink.query!({ limit: 10, offset: 0 })).records.filter((r) => r.id === rec.id).length, 1);
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
    t.same(
      left.records.map((r) => r.principal.subject),
      ['new', 'edge'],
    );
    await sink.stop?.();
  });
}

export interface PrimarySinkHarness {
  /** A started sink over working storage. */
  open(): Promise<AuditSink>;
  /** A started sink whose storage has failed (full disk, server gone, closed stream). */
  openFailing(): Promise<AuditSink>;
}

/**
 * What every primary audit sink guarantees, queryable or not: a write resolves only once the record is
 * durable and rejects when it is not (the request then fails closed); a record at every field bound is
 * accepted; the probe fails while the store cannot be written.
 */
export function primaryAuditSinkContract(t: Test, h: PrimarySinkHarness): void {
  t.test('a record at every field bound, with any characters a caller can send, is written', async (t) => {
    const sink = await h.open();
    const huge = (c: string, n: number) => c.repeat(n);
    const rec = boundRecord({
      id: '00000000-0000-4000-8000-0000000000ff',
      occurredAt: '2026-01-01T00:00:00.000Z',
      principal: { subject: `${huge('s', 400)}\u0000`, kind: 'Agent' },
      operation: 'Sign',
      resource: `name:${huge('🔑', 400)}\u001b[2J`,
      outcome: huge('o', 5000),
      correlationId: huge('c', 200),
      context: Object.fromEntries(
        Array.from({ length: 80 }, (_, i) => [`${huge('k', 100)}${i}\u0000`, `${huge('ключ', 400)}\ud800`]),
      ),
    });
    t.ok(
      rec.resource.length <= AUDIT_BOUNDS.resource && Object.keys(rec.context).length <= AUDIT_BOUNDS.contextEntries,
    );
    await sink.write(rec);
    if (sink.query)
      t.match((await sink.query({ limit: 1, offset: 0 })).records[0], {
        id: rec.id,
        resource: rec.resource,
        context: rec.context,
      });
    await sink.stop?.();
  });

  t.test('a write to a store that has failed rejects, and the probe says so', async (t) => {
    const sink = await h.openFailing();
    await t.rejects(sink.write(row('2026-01-01T00:00:00.000Z', 'x', 'Sign', 'k', 1)));
    if (sink.probe) await t.rejects(sink.probe(), 'not ready while it cannot be written');
    await sink.stop?.();
  });

  t.test('the probe succeeds while the store can be written', async (t) => {
    const sink = await h.open();
    await sink.probe?.();
    t.pass('probe resolved');
    await sink.stop?.();
  });

  t.test('a sink that chains its records links each to the one before and verifies the untouched chain', async (t) => {
    const sink = await h.open();
    if (!sink.verify) {
      t.pass('this sink keeps no hash chain');
      return sink.stop?.();
    }
    const links = [];
    for (let i = 0; i < 4; i++) links.push(await sink.write(row(`2026-01-01T00:00:0${i}.000Z`, 'ann', 'Sign', 'k', i)));
    t.ok(
      links.every((l) => l && /^[0-9a-f]{64}$/.test(l.hash)),
      'each write answers its link',
    );
    for (let i = 1; i < links.length; i++)
      t.equal(links[i]!.prevHash, links[i - 1]!.hash, `record ${i} follows record ${i - 1}`);
    t.match(await sink.verify({}), { valid: true, checked: 4 });
    await sink.stop?.();
  });
}
