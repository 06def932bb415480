import { defineConfig } from '../../../kernel/index.ts';

const weight = (doc: string, value: number, env: string) => ({ doc, format: Number, default: value, env });

export const riskConfig = defineConfig({
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
});
