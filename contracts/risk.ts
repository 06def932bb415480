import type { Test } from 'tap';
import { OPERATIONS, type Principal, type RiskAssessor } from '../kernel/index.ts';

const principals: Principal[] = [
  { kind: 'Human', subject: 'alice', groups: [] },
  { kind: 'Service', subject: 'batch', groups: [] },
  {
    kind: 'Agent',
    subject: 'agent-1',
    parent: 'alice',
    parentGroups: [],
    purpose: 'p',
    allowedOperations: [...OPERATIONS],
    credential: { jti: 'j', issuedAt: 0, expiresAt: 1 },
  },
];

/** The conformance suite every risk assessor passes: well-formed decisions for any request, never an exception. */
export function riskContract(t: Test, make: () => RiskAssessor): void {
  t.test('scores are in [0, 1], factors finite, and a refusal always says why', async (t) => {
    const risk = make();
    for (const principal of principals) {
      for (const operation of OPERATIONS) {
        for (const [resource, sourceIp] of [
          ['00000000-0000-4000-8000-000000000001', '127.0.0.1'],
          ['invalid:0123456789abcdef', ''],
          ['name:x', '::1'],
        ] as const) {
          const d = risk.assess({ principal, operation, resource, sourceIp });
          t.ok(d.score >= 0 && d.score <= 1, `${principal.kind} ${operation}: score in range`);
          t.ok(d.factors.every((f) => typeof f.name === 'string' && Number.isFinite(f.weight)));
          t.ok(['Allow', 'StepUp', 'Deny'].includes(d.decision));
          if (d.decision !== 'Allow') t.match(d.reason, /\S/);
        }
      }
    }
  });

  t.test('assessing does not change what the next assessment says', async (t) => {
    const risk = make();
    const input = { principal: principals[2]!, operation: 'Sign' as const, resource: 'k', sourceIp: '10.0.0.1' };
    const first = risk.assess(input);
    for (let i = 0; i < 50; i++) risk.assess(input);
    t.same(risk.assess(input), first);
  });
}
