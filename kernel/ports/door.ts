import type { Lifecycle } from './lifecycle.ts';
import { createPortRef } from './port-ref.ts';

/**
 * A door: a transport through which callers reach the operations (HTTP is the kernel's own; MCP, KMIP
 * and the example JSON-lines socket are plugins). A door authenticates with the authenticator port
 * (through `authenticate()`), translates its protocol into `operationRunner.run` and back, and does
 * nothing else: authorization, risk, validation, audit, metrics and spans belong to the pipeline.
 * It opens its listener in `start` and closes it in `stop`.
 */
export interface Door extends Lifecycle {
  readonly name: string;
}

export const doorPort = createPortRef<Door>('door', { multiple: true });
