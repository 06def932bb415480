import t from 'tap';
import { defaultRules, matchRule, parseRules } from '../../plugins/auto-responder/rules.ts';

const DETECTORS = ['RateSpike', 'HoneyKey', 'ScopeBaseline'];

t.test('a rule line may name several actions, run in order', async (t) => {
  const [rule] = parseRules(['RateSpike:High -> RevokeAgent, Revoke for Agent'], DETECTORS);
  t.same(rule!.actions, ['RevokeAgent', 'Revoke']);
  t.same(rule!.kinds, ['Agent']);
  t.throws(() => parseRules(['RateSpike:High -> RevokeAgent, Explode'], DETECTORS), /unknown action Explode/);
  t.throws(() => parseRules(['RateSpike:High -> RevokeAgent Revoke'], DETECTORS), /is not DETECTOR:SEVERITY -> ACTION/);
});

t.test(
  'the shipped rules: agents are revoked and their key disabled on High, everything High or Medium alerts',
  async (t) => {
    const lines = defaultRules(['Agent']);
    t.same(lines, [
      'HoneyKey:High -> RevokeAgent, Disable for Agent',
      '*:High -> RevokeAgent, Disable for Agent',
      '*:High -> Alert',
      '*:Medium -> Alert',
    ]);
    const rules = parseRules(lines, DETECTORS);
    t.same(matchRule(rules, 'RateSpike', 'High', 'Agent')?.actions, ['RevokeAgent', 'Disable']);
    t.same(matchRule(rules, 'RateSpike', 'High', 'Human')?.actions, ['Alert']);
    t.same(matchRule(rules, 'ScopeBaseline', 'Medium', 'Agent')?.actions, ['Alert']);
    t.equal(matchRule(rules, 'ScopeBaseline', 'Low', 'Agent'), undefined);
    t.same(
      defaultRules(['Agent', 'Service']).slice(2, 3),
      ['*:High -> Disable for Service'],
      'other kinds named in revokeKinds get the key disabled',
    );
  },
);
