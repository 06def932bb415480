import type { TSchema } from '@sinclair/typebox';
import type { Context } from 'koa';

/**
 * A route that is not a KMS operation: the kernel's own metrics, health, readiness and documentation.
 * It needs no credential and writes no audit record. KMS operations are declared as operations
 * (kernel/operations/operation.ts) and reach HTTP through their binding.
 */
export interface PublicRoute {
  method: 'GET';
  path: string;
  /** Its operationId in the OpenAPI document. */
  operationId: string;
  summary: string;
  tag: string;
  /** Content type of the documented response, and its JSON schema when it is JSON. */
  produces: string;
  response?: TSchema;
  /** When it can answer 503 with the same body: what that means. */
  unavailable?: string;
  /** Left out of the OpenAPI document (the docs UI's own assets). */
  hidden?: boolean;
  handle(ctx: Context): Promise<void>;
}
