import type { Operation, Principal } from '../model/index.ts';
import { createPortRef } from './port-ref.ts';

export type PolicyDecision = { allowed: true } | { allowed: false; reason: string };

/** What a policy may know about the key a call targets (for Create, the key about to be made). */
export interface ResourceFacts {
  /** Absent for a key not created yet. */
  id?: string;
  name: string;
  owner: string;
  tenant?: string;
}

/** Decides whether a principal may perform an operation on a resource. */
export interface Policy {
  /**
   * True when decisions depend on the target key's facts (key-scoped bindings): the pipeline then reads
   * them before authorizing. Left false, no call pays for that lookup.
   */
  readonly usesResourceFacts?: boolean;
  /**
   * `facts` is given for key operations when `usesResourceFacts`; undefined for an unknown key or another
   * resource. The resource `agent:new` (issuing an agent a scope) asks whether the caller may perform the
   * operation on any key at all: a grant limited to some keys counts, as the agent is bounded per key at use.
   */
  authorize(principal: Principal, operation: Operation, resource: string, facts?: ResourceFacts): PolicyDecision;
  /**
   * Whether some grant could let `principal` perform `operation`: on some key (`on: 'keys'`, operations
   * that target a key) or on the operation's other resource (`on: 'other'`: the audit trail, the advisor,
   * the agent registry). For listing what a caller may call (a door's tool list), never for deciding a
   * call: the call is still authorized by `authorize`. No side effects, nothing audited. An Agent is
   * bounded by its own scopes and by what its parent may do. A policy without it: an Agent sees its
   * own scopes, every other principal every operation (its calls are refused where not allowed).
   */
  mayEver?(principal: Principal, operation: Operation, on: 'keys' | 'other'): boolean;
}

export const policyPort = createPortRef<Policy>('policy');
