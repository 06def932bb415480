import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';

const weight = (description: string, value: number, env: string) => Type.Number({ description, default: value, env });

export const riskSettings = defineSettings(
  Type.Object({
    risk: Type.Object({
      enabled: Type.Boolean({
        description: 'Score every request and gate it (false: no score, no gate).',
        default: true,
      }),
      gateKinds: Type.String({
        description: 'Principal kinds the decision may refuse (StepUp, Deny); other kinds are scored and audited only.',
        default: 'Agent',
      }),
      deny: Type.Number({ description: 'Deny at this score or more.', default: 0.85 }),
      stepUp: Type.Number({ description: 'StepUp at this score or more.', default: 0.6 }),
      destructiveDelta: Type.Number({
        description: 'Both thresholds are this much lower for Rotate, Compromise, Destroy and Revoke.',
        default: 0.15,
      }),
      // Variables SVC_RISK_WEIGHT_* (singular), not the SVC_RISK_WEIGHTS_* their keys would give.
      weights: Type.Object({
        scope: weight('A key the actor never touched.', 0.5, 'SVC_RISK_WEIGHT_SCOPE'),
        newOperation: weight('An operation the actor never used.', 0.3, 'SVC_RISK_WEIGHT_NEW_OPERATION'),
        timeOfDay: weight("A UTC hour outside the actor's hours.", 0.2, 'SVC_RISK_WEIGHT_TIME_OF_DAY'),
        sourceAddress: weight('A source address the actor never used.', 0.3, 'SVC_RISK_WEIGHT_SOURCE_ADDRESS'),
        rateSpike: weight('Request rate, reached at 4x the rate-spike threshold.', 0.4, 'SVC_RISK_WEIGHT_RATE_SPIKE'),
        agent: weight('The caller is an agent.', 0.2, 'SVC_RISK_WEIGHT_AGENT'),
        credentialAge: weight('The credential is past 80% of its lifetime.', 0.1, 'SVC_RISK_WEIGHT_CREDENTIAL_AGE'),
        broadScope: weight('The agent holds 5 or more operations.', 0.1, 'SVC_RISK_WEIGHT_BROAD_SCOPE'),
        destructive: weight('Rotate, Compromise, Destroy or Revoke.', 0.1, 'SVC_RISK_WEIGHT_DESTRUCTIVE'),
      }),
    }),
  }),
);
