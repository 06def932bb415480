import t from 'tap';
import { ActorStateBudget, DEFAULT_STATE_BYTES } from '../../kernel/detection/state-budget.ts';
import type { AuditRecord } from '../../kernel/model/index.ts';
import { BaselineDetector } from '../../plugins/detectors/baseline/baseline-detector.ts';
import { opHistogram, scope, sourceIp, timeOfDay } from '../../plugins/detectors/baseline/dimensions.ts';

const budget = () => new ActorStateBudget(DEFAULT_STATE_BYTES);

const rec = (over: Partial<AuditRecord> & { ip?: string; kind?: 'Human' | 'Agent' }): AuditRecord => ({
  id: 'rec',
  occurredAt: over.occurredAt ?? '2026-01-05T10:00:00.000Z',
  principal: { subject: 'agent-1', kind: over.kind ?? 'Agent' },
  operation: over.operation ?? 'Sign',
  resource: over.resource ?? 'k1',
  outcome: 'Success',
  context: { 'source.ip': over.ip ?? '10.0.0.1' },
  correlationId: 'r',
});

t.test('each baseline stays quiet on its first observation and on known values, and reports a new one', async (t) => {
  const cases: Array<[BaselineDetector, Partial<AuditRecord> & { ip?: string }, string]> = [
    [new BaselineDetector(scope, budget()), { resource: 'k2' }, 'Medium'],
    [new BaselineDetector(opHistogram, budget()), { operation: 'Encrypt' }, 'Low'],
    [new BaselineDetector(timeOfDay, budget()), { occurredAt: '2026-01-06T03:00:00.000Z' }, 'Low'],
    [new BaselineDetector(sourceIp, budget()), { ip: '203.0.113.9' }, 'Medium'],
  ];
  for (const [detector, novel, severity] of cases) {
    t.same(detector.observe(rec({})), [], `${detector.name}: cold start`);
    t.same(detector.observe(rec({})), [], `${detector.name}: known value`);
    const [finding] = detector.observe(rec(novel));
    t.equal(finding?.severity, severity, `${detector.name}: new value`);
    t.same(detector.observe(rec(novel)), [], `${detector.name}: reported once`);
  }
});

t.test('ScopeBaseline and SourceIpBaseline are Low for humans; Create is not a scope', async (t) => {
  const d = new BaselineDetector(scope, budget());
  d.observe(rec({ kind: 'Human' }));
  t.equal(d.observe(rec({ kind: 'Human', resource: 'k9' }))[0]?.severity, 'Low');
  t.same(d.observe(rec({ kind: 'Human', operation: 'Create', resource: 'name:x' })), []);
});

t.test(
  'ScopeBaseline: five keys never touched before within a minute is probing, High; spread out they stay Medium',
  async (t) => {
    const probe = new BaselineDetector(scope, budget());
    probe.observe(rec({ resource: 'own' }));
    const at = (s: number) => new Date(Date.parse('2026-01-05T10:00:00.000Z') + s * 1000).toISOString();
    const severities = [1, 2, 3, 4, 5].map(
      (i) => probe.observe(rec({ resource: `other-${i}`, occurredAt: at(i) }))[0]?.severity,
    );
    t.same(severities, ['Medium', 'Medium', 'Medium', 'Medium', 'High']);

    const slow = new BaselineDetector(scope, budget());
    slow.observe(rec({ resource: 'own' }));
    const spread = [1, 2, 3, 4, 5].map(
      (i) => slow.observe(rec({ resource: `other-${i}`, occurredAt: at(i * 20) }))[0]?.severity,
    );
    t.same(spread, ['Medium', 'Medium', 'Medium', 'Medium', 'Medium'], 'five new keys over 100 s');
  },
);
