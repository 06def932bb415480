import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { SvcError } from '../errors.ts';

// A plain test of the header; type-is' full media-type parse showed up in request profiles.
const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * JSON body parsing for body-carrying routes: a request with no body at all reads as `{}` (so optional
 * bodies such as rotate's may be left out); any other body must be application/json within the limit.
 */
export function jsonBody(maxBodyBytes: number): Middleware {
  const parse = koaBody({ json: true, jsonStrict: true, jsonLimit: maxBodyBytes, urlencoded: false, text: false, multipart: false });
  return async (ctx, next) => {
    const length = ctx.get('Content-Length');
    const hasBody = (length !== '' && length !== '0') || ctx.get('Transfer-Encoding') !== '';
    if (!hasBody) {
      (ctx.request as { body?: unknown }).body = {};
      return next();
    }
    if (!JSON_TYPE.test(ctx.get('Content-Type'))) throw new SvcError('UnsupportedMediaType', 'request body must be sent as Content-Type: application/json');
    return parse(ctx, next);
  };
}
