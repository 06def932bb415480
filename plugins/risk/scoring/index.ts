import { type ConfigValues, definePlugin, detectorPort, KERNEL_API_VERSION, type PrincipalKind, riskPort } from '../../../kernel/index.ts';
import { RiskScorer } from './risk-scorer.ts';
import { riskConfig } from './config.ts';

export default definePlugin({
  id: 'risk-scoring',
  apiVersion: KERNEL_API_VERSION,
  provides: riskPort,
  description: 'risk score from detector baselines and request context; Allow, StepUp or Deny',
  dependsOn: { detectors: detectorPort },
  config: riskConfig,
  configSlice: (all: ConfigValues<typeof riskConfig>) => {
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
