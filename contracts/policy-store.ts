import { randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import type { AuditRecord, KeyJournal, NewPolicyVersion } from '../kernel/index.ts';

const version = (marker: string, extra: Partial<NewPolicyVersion> = {}): NewPolicyVersion => ({
  document: {
    roleBindings: { admins: ['Get', 'Administer'], [`team-${marker}`]: { operations: ['Sign'], keys: ['owner:self'] } },
    subjectBindings: { 'zoë 🔑': ['Query'], [marker]: { operations: ['Query', 'Revoke'], agents: ['*'] } },
  },
  createdAt: '2026-01-01T00:00:00.000Z',
  createdBy: `alice-${marker}`,
  ...extra,
});

const record = (): AuditRecord => ({
  id: randomUUID(),
  occurredAt: '2000-01-01T00:00:00.000Z',
  principal: { subject: 'alice', kind: 'Human' },
  operation: 'Administer',
  resource: 'policy',
  outcome: 'Success',
  context: { 'policy.version': 'n' },
  correlationId: `req-${randomUUID()}`,
});

/**
 * The conformance suite of the policy store every journal backend keeps (journal.policies). `open` gives a
 * started journal; on the SQL backends each `open` is the same storage, so every check is relative to the
 * latest version it finds. `reopen` opens a second instance over the same storage, where there is one.
 */
export function policyStoreContract(
  t: Test,
  open: () => Promise<KeyJournal>,
  reopen?: () => Promise<KeyJournal>,
): void {
  t.test('policy store: puts the next version only over the latest one, and reads it back as put', async (t) => {
    const j = await open();
    const store = j.policies;
    const before = await store.latestVersion();
    t.equal((await store.latest())?.version ?? 0, before, 'latest and latestVersion agree');
    const next = version(randomUUID());
    t.equal(await store.put(next, before), true, 'the version after the latest is written');
    t.equal(await store.latestVersion(), before + 1);
    t.same(await store.latest(), { ...next, version: before + 1 }, 'every field back as put, unicode included');
    t.equal(await store.put(version('stale'), before), false, 'over a version that is no longer the latest: refused');
    t.equal(await store.put(version('ahead'), before + 5), false, 'over a version that does not exist: refused');
    t.equal(await store.latestVersion(), before + 1, 'nothing written by the refused puts');
    t.equal((await store.latest())?.createdBy, next.createdBy);
    await j.stop?.();
  });

  t.test('policy store: of concurrent puts over one version, exactly one wins', async (t) => {
    const j = await open();
    const before = await j.policies.latestVersion();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => j.policies.put(version(`race-${i}`), before)),
    );
    t.equal(results.filter(Boolean).length, 1, 'one put committed');
    t.equal(await j.policies.latestVersion(), before + 1);
    await j.stop?.();
  });

  t.test("policy store: a put's audit record is in the outbox exactly when the version is", async (t) => {
    const j = await open();
    const before = await j.policies.latestVersion();
    const won = record();
    const lost = record();
    t.equal(await j.policies.put(version('audited'), before, won), true);
    t.equal(await j.policies.put(version('lost'), before, lost), false);
    const ids = (await j.pendingAudit('2000-01-02T00:00:00.000Z', 10_000)).map((r) => r.id);
    t.ok(ids.includes(won.id), 'the committed version has its record');
    t.notOk(ids.includes(lost.id), 'the refused one has none');
    await j.ackAudit([won.id]);
    await j.stop?.();
  });

  t.test('policy store: history is newest first, at most limit', async (t) => {
    const j = await open();
    let latest = await j.policies.latestVersion();
    for (const marker of ['h1', 'h2', 'h3']) t.ok(await j.policies.put(version(marker), latest++));
    const history = await j.policies.history(3);
    t.same(
      history.map((v) => v.version),
      [latest, latest - 1, latest - 2],
    );
    t.same(
      history.map((v) => v.createdBy),
      ['alice-h3', 'alice-h2', 'alice-h1'],
    );
    t.equal((await j.policies.history(1)).length, 1);
    t.same(await j.policies.history(0), []);
    await j.stop?.();
  });

  t.test('policy store: a document of some hundreds of kilobytes round-trips', async (t) => {
    const j = await open();
    const before = await j.policies.latestVersion();
    const subjectBindings = Object.fromEntries(
      Array.from({ length: 4000 }, (_, i) => [`subject-${i}-${'x'.repeat(80)}`, ['Get', 'Sign', 'Verify']]),
    );
    const big = version('big', { document: { roleBindings: {}, subjectBindings } });
    t.ok(JSON.stringify(big.document).length > 400_000);
    t.equal(await j.policies.put(big, before), true);
    t.same((await j.policies.latest())?.document, big.document);
    await j.stop?.();
  });

  if (reopen)
    t.test('policy store: a version committed through another instance is seen at once', async (t) => {
      const a = await open();
      const b = await reopen();
      const before = await a.policies.latestVersion();
      t.equal(await b.policies.latestVersion(), before);
      const next = version('other-instance');
      t.ok(await b.policies.put(next, before));
      t.equal(await a.policies.latestVersion(), before + 1, 'the other instance sees the new version');
      t.same((await a.policies.latest())?.document, next.document);
      t.equal(await a.policies.put(version('late'), before), false, 'and refuses a put over the old one');
      await a.stop?.();
      await b.stop?.();
    });
}
