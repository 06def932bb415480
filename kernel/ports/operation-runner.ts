import type { AnyOperation } from '../operations/operation.ts';
import type { Principal } from '../model/index.ts';
import type { SvcError } from '../errors.ts';
import type { Caller } from '../operations/pipeline.ts';
import { createPortRef } from './port-ref.ts';

/**
 * The operation pipeline as plugins see it: internal actors (the auto-responder, the rotation scheduler,
 * future doors) run operations through the same entry point as HTTP, so they are authorized, audited,
 * measured and traced the same way. Internal actors pass SYSTEM_PRINCIPAL as the caller's principal.
 */
export interface OperationRunner {
  /**
   * `rejected`: the door already found the call's input unacceptable (a value it could not translate);
   * the pipeline refuses with it after authorizing, and audits the refusal like any other.
   */
  run(operationId: string, input: unknown, caller: Caller, rejected?: SvcError): Promise<unknown>;
  /** Every operation's declaration (a door that lists tools or generates a schema reads them). */
  list(): AnyOperation[];
  /**
   * The operations `principal` may call, as far as can be known without a target: the human-only rule,
   * then the policy's `mayEver` (an Agent: its own scopes bounded by its parent's). Operations that
   * authorize themselves (the agent registry) are listed for every principal the human-only rule lets
   * through. No side effects: nothing is rate limited, audited or measured. A listed operation may
   * still be refused for a given key, by risk or by the rate limit.
   */
  permitted(principal: Principal): AnyOperation[];
}

export const operationRunnerPort = createPortRef<OperationRunner>('operationRunner');
