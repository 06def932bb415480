import { definePlugin, detectorPort, KERNEL_API_VERSION, type PrincipalKind, riskPort } from '../../../kernel/index.ts';
import { RiskScorer, type RiskSettings } from './risk-scorer.ts';
import { riskSettings } from './config.ts';

export default definePlugin({
  id: 'risk-scoring',
  apiVersion: KERNEL_API_VERSION,
  provides: riskPort,
  description: 'risk score from detector baselines and request context; Allow, StepUp or Deny',
  dependsOn: { detectors: detectorPort },
  settings: riskSettings,
  configure: ({ risk: r }): RiskSettings => {
    const w = r.weights;
    return {
      deny: r.deny,
      stepUp: r.stepUp,
      destructiveDelta: r.destructiveDelta,
      gateKinds: r.gateKinds
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean) as PrincipalKind[],
      weights: {
        ScopeBaseline: w.scope,
        OpHistogramBaseline: w.newOperation,
        TimeOfDayBaseline: w.timeOfDay,
        SourceIpBaseline: w.sourceAddress,
        RateSpike: w.rateSpike,
        AgentPrincipal: w.agent,
        CredentialAge: w.credentialAge,
        BroadScope: w.broadScope,
        DestructiveOp: w.destructive,
      },
    };
  },
  create: ({ config, deps, clock }) => new RiskScorer(deps.detectors, config, clock),
});
