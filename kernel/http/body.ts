import type { Context } from 'koa';
import { text as readText } from 'co-body';
import { SvcError } from '../errors.ts';
import { parseJsonBody } from './json-text.ts';

// A plain test of the header; type-is' full media-type parse showed up in request profiles.
const JSON_TYPE = /^application\/json\s*(;|$)/i;

export type BodyReader = (ctx: Context) => Promise<unknown>;

/**
 * Reads a request's JSON body, once the caller is known. A request with no body at all reads as `{}`
 * (so optional bodies such as rotate's may be left out); any other body must be application/json within
 * the limit: 415 for another type, 413 over the limit, 400 for malformed JSON.
 */
export function jsonBodyReader(maxBodyBytes: number): BodyReader {
  // co-body (koa-body's own reader, without its four media-type checks per request: the type is checked
  // here) reads the text with the size limit and content encodings; json-text.ts parses it, refusing a
  // body nested too deep before JSON.parse spends the event loop's time on it.
  const options = { limit: maxBodyBytes, encoding: 'utf8' as const };
  return async (ctx) => {
    // Node's own lower-cased header names, read as Koa's ctx.get reads them (absent is ''), without its
    // delegate and case folding per name.
    const headers = ctx.req.headers;
    const length = headers['content-length'] ?? '';
    const hasBody = (length !== '' && length !== '0') || (headers['transfer-encoding'] ?? '') !== '';
    if (!hasBody) return {};
    if (!JSON_TYPE.test(headers['content-type'] ?? ''))
      throw new SvcError('UnsupportedMediaType', 'request body must be sent as Content-Type: application/json');
    return parseJsonBody(await readText(ctx.req, options));
  };
}
