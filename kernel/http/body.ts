import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { SvcError } from '../errors.ts';
import { parseJsonBody } from './json-text.ts';

// A plain test of the header; type-is' full media-type parse showed up in request profiles.
const JSON_TYPE = /^application\/json\s*(;|$)/i;
const noop = async () => {};

export type BodyReader = (ctx: Context) => Promise<unknown>;

/**
 * Reads a request's JSON body, once the caller is known. A request with no body at all reads as `{}`
 * (so optional bodies such as rotate's may be left out); any other body must be application/json within
 * the limit: 415 for another type, 413 over the limit, 400 for malformed JSON.
 */
export function jsonBodyReader(maxBodyBytes: number): BodyReader {
  // koa-body reads the text (size limit, content encodings); json-text.ts parses it, refusing a body nested
  // too deep before JSON.parse spends the event loop's time on it.
  const read = koaBody({ json: false, text: true, textTypes: ['application/json'], textLimit: maxBodyBytes, urlencoded: false, multipart: false });
  return async (ctx) => {
    const length = ctx.get('Content-Length');
    const hasBody = (length !== '' && length !== '0') || ctx.get('Transfer-Encoding') !== '';
    if (!hasBody) return {};
    if (!JSON_TYPE.test(ctx.get('Content-Type'))) throw new SvcError('UnsupportedMediaType', 'request body must be sent as Content-Type: application/json');
    await read(ctx, noop);
    const request = ctx.request as { body?: unknown };
    const text = request.body;
    // The text is not kept on the request beside what it parses into: it would live as long as the call.
    request.body = undefined;
    return typeof text === 'string' ? parseJsonBody(text) : text;
  };
}
