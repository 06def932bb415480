import type { Static, TSchema } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { Operation, Principal } from '../model/index.ts';
import { createPortRef } from '../ports/port-ref.ts';

/** What a handler may add to its request's audit record; never secrets (values of context maps included). */
export interface AuditNotes {
  /** Overrides the route's resource (create sets the new key id; a failed create names the key name). */
  resource?: string;
  /** Overrides the audit outcome of a successful call (verify with valid:false is InvalidSignature). */
  outcome?: string;
  /** Add to it (Object.assign), never replace it: the guard has stamped it already (risk decision). */
  context: Record<string, string>;
}

export interface RouteRequest<B = unknown, Q = Record<string, string | undefined>> {
  principal: Principal;
  params: Record<string, string>;
  query: Q;
  body: B;
  requestId: string;
  sourceIp: string;
  audit: AuditNotes;
}

export interface RouteResult {
  status?: number;
  body: unknown;
}

/**
 * One endpoint, declared once. The http host derives from it: body parsing and validation,
 * authentication, the human-only rule, authorization, the audit record, metrics, the span and the
 * OpenAPI entry. `operation` makes the route a guarded, audited KMS operation; `public` routes
 * (metrics, docs, health) skip the guard and are not audited.
 */
export interface GuardedRoute<B extends TSchema | undefined = TSchema | undefined, Q extends TSchema | undefined = TSchema | undefined> {
  kind: 'guarded';
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  summary: string;
  tag: string;
  operation: Operation;
  humanOnly?: boolean;
  body?: B;
  query?: Q;
  response: TSchema;
  successStatus?: number;
  /** Extra documented error codes beyond the ones every guarded route can answer. */
  errors?: string[];
  /** The audit resource, from the request (key id for key routes). */
  resource(req: RouteRequest): string;
  handler(req: RouteRequest<B extends TSchema ? Static<B> : undefined, Q extends TSchema ? Static<Q> : Record<string, string | undefined>>): Promise<RouteResult>;
}

export interface PublicRoute {
  kind: 'public';
  method: 'GET';
  path: string;
  summary: string;
  tag: string;
  /** Content type of the documented response, and its JSON schema when it is JSON. */
  produces: string;
  response?: TSchema;
  /** Left out of the OpenAPI document (the docs UI's own assets). */
  hidden?: boolean;
  handle(ctx: Context): Promise<void>;
}

export type RouteDef = GuardedRoute<any, any> | PublicRoute;

/** Helper that keeps a guarded route's handler typed by its schemas. */
export function guarded<B extends TSchema | undefined, Q extends TSchema | undefined>(route: Omit<GuardedRoute<B, Q>, 'kind'>): GuardedRoute<B, Q> {
  return { kind: 'guarded', ...route };
}

/** Feature plugins contribute their routes through this multiple port. */
export interface RouteContribution {
  routes: RouteDef[];
}

export const routesPort = createPortRef<RouteContribution>('routes', { multiple: true });
