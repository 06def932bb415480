import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { asSvcError, isSvcError, SvcError } from '../errors.ts';
import type { Logger } from '../ports/logger.ts';

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * Whether a caller's correlation id is kept as the call's request id (1..128 visible ASCII): X-Request-Id, KMIP's
 * Client Correlation Value.
 */
export const isRequestId = (text: string): boolean => REQUEST_ID.test(text);
/** Longest request target answered; longer ones are 414 before any routing. */
export const MAX_URL_LENGTH = 8192;

/** Maps what Koa, @koa/router and co-body throw onto the catalogue; anything else is InternalError. */
export function toSvcError(err: unknown): SvcError {
  if (isSvcError(err)) return err;
  const status = (err as { status?: number }).status;
  if (status === 413) {
    // raw-body (under co-body) says which limit the body ran over: the caller learns how large a body may be.
    const limit = (err as { limit?: unknown }).limit;
    return new SvcError(
      'PayloadTooLarge',
      typeof limit === 'number'
        ? `request body is larger than the configured limit (http.maxBodyBytes: ${limit} bytes)`
        : 'request body is larger than the configured limit',
    );
  }
  if (status === 415)
    return new SvcError('UnsupportedMediaType', 'request body must be sent as Content-Type: application/json');
  if (status === 405)
    return new SvcError('MethodNotAllowed', (err as Error).message || 'method not allowed on this route');
  if (status === 400) return new SvcError('BadRequest', 'request body is not valid JSON');
  return asSvcError(err);
}

/**
 * The outermost middleware: keeps or makes the request id (X-Request-Id, echoed on the answer and audited) and turns
 * every
 * error into `{error, message}` with the catalogue's status.
 */
export function requestIdAndErrors(logger: Logger): Middleware {
  return async (ctx, next) => {
    // Node's lower-cased name, without ctx.get's delegate and case folding (repeated ones arrive joined).
    const header = ctx.req.headers['x-request-id'];
    const incoming = typeof header === 'string' ? header : '';
    const requestId = isRequestId(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      if (ctx.url.length > MAX_URL_LENGTH)
        throw new SvcError('URITooLong', `the request target is longer than ${MAX_URL_LENGTH} characters`);
      await next();
      if (ctx.status === 404 && ctx.body === undefined)
        throw new SvcError('NotFound', `no route ${ctx.method} ${ctx.path}`);
    } catch (err) {
      const mapped = toSvcError(err);
      if (mapped.code === 'InternalError' && !isSvcError(err)) {
        logger.error('unhandled error', { requestId, path: ctx.path, error: (err as Error)?.stack ?? String(err) });
      }
      ctx.status = mapped.status;
      if (mapped.retryAfterSeconds !== undefined)
        ctx.set('Retry-After', String(Math.max(1, Math.ceil(mapped.retryAfterSeconds))));
      ctx.body = { error: mapped.code, message: mapped.message };
    }
  };
}
