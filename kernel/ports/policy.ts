import type { Operation, Principal } from '../model/index.ts';
import { createPortRef } from './port-ref.ts';

export type PolicyDecision = { allowed: true } | { allowed: false; reason: string };

/** Decides whether a principal may perform an operation on a resource (SPEC 5 "Authorization"). */
export interface Policy {
  authorize(principal: Principal, operation: Operation, resource: string): PolicyDecision;
}

export const policyPort = createPortRef<Policy>('policy');
