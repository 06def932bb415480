import type { Operation, Principal } from '../model/index.ts';
import { createPortRef } from './port-ref.ts';

export interface RiskInput {
  principal: Principal;
  operation: Operation;
  resource: string;
  sourceIp: string;
}

/** One contribution to a score: the factor's name and its weighted value. */
export interface RiskFactor {
  name: string;
  weight: number;
}

export type RiskDecision =
  | { decision: 'Allow'; score: number; factors: RiskFactor[] }
  | { decision: 'StepUp' | 'Deny'; score: number; factors: RiskFactor[]; reason: string };

/**
 * Scores a request and decides Allow, StepUp or Deny. Optional: without a provider every request
 * is allowed. The guard turns StepUp into 401 StepUpRequired and Deny into 403 PermissionDenied with the
 * message prefix "risk: ", and stamps the decision on the audit record. Locate is never gated.
 */
export interface RiskAssessor {
  assess(input: RiskInput): RiskDecision;
}

export const riskPort = createPortRef<RiskAssessor>('risk');
