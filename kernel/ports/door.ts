import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../model/index.ts';
import type { Lifecycle } from './lifecycle.ts';
import { createPortRef } from './port-ref.ts';

/** One HTTP request the service's listener hands to a door's mount. */
export interface DoorHttpRequest {
  /** Node's request; its body has not been read. */
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** The request's id (its X-Request-Id when valid, else a new one), already set on the response. */
  readonly requestId: string;
  /** The remote address of the connection. */
  readonly sourceIp: string;
  /** The path below the mount's prefix: '' for the prefix itself, else starting with '/'. */
  readonly path: string;
  /**
   * The caller, from the request's credential headers, with the kernel's authenticator and its rules
   * (svc-system is refused). Throws Unauthorized (401) when there is no valid credential: call it before
   * reading the body, so an anonymous caller cannot make the service parse anything.
   */
  authenticate(): Promise<Principal>;
}

/** A path on the service's own listener that a door answers (`/mcp`): it, and every path below it, any method. */
export interface DoorMount {
  readonly path: string;
  /**
   * Answers one request by writing `res`. An error thrown before anything was written is answered as the
   * REST API answers it (`{error, message}` with the catalogue's status and Retry-After); headers the door
   * set on `res` before throwing (WWW-Authenticate) are kept. A request that is not answered when it
   * resolves is answered 500.
   */
  handle(request: DoorHttpRequest): Promise<void>;
}

/**
 * A door: a transport through which callers reach the operations. The REST API is the kernel's own
 * door (`http`); MCP, KMIP and the example JSON-lines socket are plugins. A door authenticates (with
 * `DoorHttpRequest.authenticate`, or `authenticate()` over the authenticator port), translates its
 * protocol into `operationRunner.run(id, input, { door: name, ... })` and back, and does nothing else:
 * authorization, risk, validation, audit, metrics and spans belong to the pipeline.
 *
 * Phases: the kernel starts doors after every other plugin, the audit pipeline and the outbox relay are
 * up, and stops them first at shutdown (all doors at once, before the relay, the audit pipeline and the
 * other plugins), so a call in flight at shutdown still has every sink and listener. A door may open a
 * listener of its own in `start` (closed in `stop`, letting calls in flight finish) and/or answer paths
 * on the service's listener through `mounts`, which the kernel reads once, after the door started and
 * before the listener opens; the listener's TLS, limits, request ids and shutdown grace apply to them.
 */
export interface Door extends Lifecycle {
  readonly name: string;
  mounts?(): DoorMount[];
}

export const doorPort = createPortRef<Door>('door', { multiple: true });
