import type { Test } from 'tap';
import type { AgentRecord, KeyJournal } from '../kernel/index.ts';

let n = 0;
const agent = (parent: string, issuedAt: string, extra: Partial<AgentRecord> = {}): AgentRecord => {
  n++;
  return {
    agentId: `agent-00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    jti: `jti-${n}-${Math.random().toString(36).slice(2)}`,
    parent,
    parentGroups: ['team', `group-${n}`],
    purpose: `purpose ${n}`,
    scopes: ['Sign', 'Get'],
    issuedAt,
    expiresAt: '2099-01-01T00:00:00.000Z',
    ...extra,
  };
};

/**
 * The conformance suite of the agent registry every journal backend keeps (journal.agents). `open` gives
 * a started journal over fresh storage; `reopen` a new instance over the same storage (where there is one).
 */
export function agentRegistryContract(
  t: Test,
  open: () => Promise<KeyJournal>,
  reopen?: () => Promise<KeyJournal>,
): void {
  t.test('agent registry: registers, reads back field for field, lists newest first and by parent', async (t) => {
    const j = await open();
    const parent = `owner-${n}`;
    const older = agent(parent, '2026-01-01T00:00:00.000Z', { parentJti: 'parent-jti-1' });
    const groupless = agent(parent, '2026-01-01T00:00:00.000Z', { parentGroups: [] });
    const newer = agent(parent, '2026-01-02T00:00:00.000Z', {
      keys: ['id:00000000-0000-4000-8000-000000000001', 'alias:app'],
    });
    const other = agent(`${parent}-other`, '2026-01-03T00:00:00.000Z');
    for (const a of [older, newer, other, groupless]) await j.agents.register(a);
    t.same(await j.agents.get(older.agentId), older, 'every field, parentJti and parentGroups included');
    t.same(await j.agents.get(groupless.agentId), groupless, 'a parent without groups');
    t.equal(await j.agents.get('agent-unknown'), undefined);
    t.same(await j.agents.findByJti(newer.jti), newer, 'found by its jti, its key patterns included');
    t.equal(await j.agents.findByJti('jti-unknown'), undefined);
    t.same(
      (await j.agents.list({ parent, limit: 10 })).map((a) => a.agentId),
      [newer.agentId, groupless.agentId, older.agentId],
      'one parent, newest first (a later registration first on a tie)',
    );
    const all = (await j.agents.list({ limit: 1000 })).map((a) => a.agentId);
    t.ok(all.indexOf(other.agentId) < all.indexOf(newer.agentId), 'all parents, newest first');
    t.equal((await j.agents.list({ parent, limit: 1 })).length, 1, 'limit holds');
    await t.rejects(j.agents.register(older), 'an agentId is registered once');
    await j.stop?.();
  });

  t.test('agent registry: markRevoked sets revokedAt once; unknown agents answer undefined', async (t) => {
    const j = await open();
    const a = agent('revoker', '2026-01-01T00:00:00.000Z');
    await j.agents.register(a);
    t.equal((await j.agents.markRevoked(a.agentId, '2026-02-01T00:00:00.000Z'))?.revokedAt, '2026-02-01T00:00:00.000Z');
    t.equal(
      (await j.agents.markRevoked(a.agentId, '2026-03-01T00:00:00.000Z'))?.revokedAt,
      '2026-02-01T00:00:00.000Z',
      'the first revocation time stays',
    );
    t.equal((await j.agents.get(a.agentId))?.revokedAt, '2026-02-01T00:00:00.000Z', 'the next get sees the revocation');
    t.equal(await j.agents.markRevoked('agent-unknown', '2026-02-01T00:00:00.000Z'), undefined);
    const parentJti = `parent-${n}`;
    const under = [
      agent('cascade', '2026-01-01T00:00:00.000Z', { parentJti }),
      agent('cascade', '2026-01-02T00:00:00.000Z', { parentJti }),
    ];
    const elsewhere = agent('cascade', '2026-01-03T00:00:00.000Z', { parentJti: `${parentJti}-other` });
    for (const x of [...under, elsewhere]) await j.agents.register(x);
    await j.agents.markRevoked(under[0]!.agentId, '2026-02-01T00:00:00.000Z');
    t.same(
      await j.agents.markRevokedUnder(parentJti, '2026-02-02T00:00:00.000Z'),
      [under[1]!.agentId],
      'the unrevoked agents issued under that token',
    );
    t.equal(
      (await j.agents.get(under[0]!.agentId))?.revokedAt,
      '2026-02-01T00:00:00.000Z',
      'an earlier revocation time stays',
    );
    t.equal(
      (await j.agents.get(under[1]!.agentId))?.revokedAt,
      '2026-02-02T00:00:00.000Z',
      'the next get sees the cascade',
    );
    t.equal((await j.agents.get(elsewhere.agentId))?.revokedAt, undefined, 'agents of other tokens are untouched');
    if (reopen) {
      await j.stop?.();
      const again = await reopen();
      t.equal((await again.agents.get(a.agentId))?.revokedAt, '2026-02-01T00:00:00.000Z', 'kept across a restart');
      await again.stop?.();
    } else {
      await j.stop?.();
    }
  });
}
