import { definePlugin, KERNEL_API_VERSION } from '../../../kernel/define-plugin.ts';
import type { PrincipalKind } from '../../../kernel/model/index.ts';
import { detectorPort } from '../../../kernel/ports/detector.ts';
import { riskPort } from '../../../kernel/ports/risk.ts';
import { RiskScorer } from './risk-scorer.ts';

const weight = (doc: string, value: number, env: string) => ({ doc, format: Number, default: value, env });

export default definePlugin({
  id: 'risk-scoring',
  apiVersion: KERNEL_API_VERSION,
  provides: riskPort,
  description: 'risk score from detector baselines and request context; Allow, StepUp or Deny',
  dependsOn: { detectors: detectorPort },
  config: {
    risk: {
      enabled: { doc: 'Score every request and gate it (false: no score, no gate).', format: Boolean, default: true, env: 'SVC_RISK_ENABLED' },
      gateKinds: { doc: 'Principal kinds the decision may refuse (StepUp, Deny); other kinds are scored and audited only.', format: String, default: 'Agent', env: 'SVC_RISK_GATE_KINDS' },
      deny: { doc: 'Deny at this score or more.', format: Number, default: 0.85, env: 'SVC_RISK_DENY' },
      stepUp: { doc: 'StepUp at this score or more.', format: Number, default: 0.6, env: 'SVC_RISK_STEP_UP' },
      destructiveDelta: { doc: 'Both thresholds are this much lower for Rotate, Compromise, Destroy and Revoke.', format: Number, default: 0.15, env: 'SVC_RISK_DESTRUCTIVE_DELTA' },
      weights: {
        scope: weight('A key the actor never touched.', 0.5, 'SVC_RISK_WEIGHT_SCOPE'),
        newOperation: weight('An operation the actor never used.', 0.3, 'SVC_RISK_WEIGHT_NEW_OPERATION'),
        timeOfDay: weight('A UTC hour outside the actor\'s hours.', 0.2, 'SVC_RISK_WEIGHT_TIME_OF_DAY'),
        sourceAddress: weight('A source address the actor never used.', 0.3, 'SVC_RISK_WEIGHT_SOURCE_ADDRESS'),
        rateSpike: weight('Request rate, reached at 4x the rate-spike threshold.', 0.4, 'SVC_RISK_WEIGHT_RATE_SPIKE'),
        agent: weight('The caller is an agent.', 0.2, 'SVC_RISK_WEIGHT_AGENT'),
        credentialAge: weight('The credential is past 80% of its lifetime.', 0.1, 'SVC_RISK_WEIGHT_CREDENTIAL_AGE'),
        broadScope: weight('The agent holds 5 or more operations.', 0.1, 'SVC_RISK_WEIGHT_BROAD_SCOPE'),
        destructive: weight('Rotate, Compromise, Destroy or Revoke.', 0.1, 'SVC_RISK_WEIGHT_DESTRUCTIVE'),
      },
    },
  },
  configSlice: (all: Record<string, any>) => {
    const r = all.risk;
    const w = r.weights;
    return {
      deny: r.deny as number,
      stepUp: r.stepUp as number,
      destructiveDelta: r.destructiveDelta as number,
      gateKinds: String(r.gateKinds).split(',').map((k) => k.trim()).filter(Boolean) as PrincipalKind[],
      weights: {
        ScopeBaseline: w.scope, OpHistogramBaseline: w.newOperation, TimeOfDayBaseline: w.timeOfDay, SourceIpBaseline: w.sourceAddress,
        RateSpike: w.rateSpike, AgentPrincipal: w.agent, CredentialAge: w.credentialAge, BroadScope: w.broadScope, DestructiveOp: w.destructive,
      } as Record<string, number>,
    };
  },
  create: ({ config, deps, clock }) => new RiskScorer(deps.detectors, config, clock),
});
