import type { AnyOperation } from '../operations/operation.ts';
import type { Caller } from '../operations/pipeline.ts';
import { createPortRef } from './port-ref.ts';

/**
 * The operation pipeline as plugins see it: internal actors (the auto-responder, the rotation scheduler,
 * future doors) run operations through the same entry point as HTTP, so they are authorized, audited,
 * measured and traced the same way. Internal actors pass SYSTEM_PRINCIPAL as the caller's principal.
 */
export interface OperationRunner {
  run(operationId: string, input: unknown, caller: Caller): Promise<unknown>;
  /** Every operation's declaration (a door that lists tools or generates a schema reads them). */
  list(): AnyOperation[];
}

export const operationRunnerPort = createPortRef<OperationRunner>('operationRunner');
