import type { IncomingMessage } from 'node:http';
import { isSvcError, MAX_JSON_DEPTH, nestedDeeperThan, readRawBody } from '../../../kernel/index.ts';

/** Why a body could not be read: too large (413) or not JSON (400). */
export class BodyError extends Error {
  constructor(
    readonly status: 413 | 400,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads a request's JSON body up to `limit` bytes: a larger one stops being read at the limit (413), as
 * the REST door's does, so an oversized tools/call costs no more memory than the limit.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  let body: Buffer;
  try {
    body = await readRawBody(req, limit);
  } catch (err) {
    if (isSvcError(err) && err.code === 'PayloadTooLarge') throw new BodyError(413, err.message);
    throw err;
  }
  const text = body.toString('utf8');
  // As on the REST door: parsing a body nested 300,000 levels deep would hold the event loop for every caller.
  if (nestedDeeperThan(text, MAX_JSON_DEPTH))
    throw new BodyError(400, `Parse error: the request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BodyError(400, 'Parse error: the request body is not valid JSON');
  }
}
