import type { Operation, Principal } from '../model/index.ts';
import type { KeyScope } from './key-locate.ts';
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
   * Whether some grant lets `principal` perform `operation` on at least one key, whatever the key's facts.
   * For listing the key operations a caller may call (a door's tool list; operations on other resources
   * are listed by asking `authorize` for their resource), never for deciding a call: the call is still
   * authorized by `authorize`. No side effects, nothing audited. An Agent is bounded by its own scopes
   * and by what its parent may do. A policy without it: an Agent is listed its own scopes, every other
   * principal every key operation (its calls are refused where not allowed).
   */
  mayEver?(principal: Principal, operation: Operation): boolean;
  /**
   * The keys on which `principal` may perform `operation`, as conditions a journal's key index matches
   * (finding keys reads only those rows). It must describe exactly the keys `authorize` allows with their
   * facts: wider, and the caller learns from page sizes and cursors that hidden keys match its filter
   * (each row is still checked with `authorize`); narrower, and it misses keys it may use. A policy
   * without it has every key scanned and checked one by one, a bounded number per call.
   */
  keyScope?(principal: Principal, operation: Operation): KeyScope;
}

export const policyPort = createPortRef<Policy>('policy');
