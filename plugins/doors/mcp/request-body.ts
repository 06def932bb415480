import type { IncomingMessage } from 'node:http';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../../kernel/index.ts';

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
export function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // Stop listening; Node discards the rest of the body once the 413 is answered.
      req.off('data', onData).off('end', onEnd);
      reject(tooLarge(limit));
    };
    const onEnd = (): void => {
      // Most bodies arrive in one chunk: decoded as it is, without a copy into a new buffer.
      const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
      // As on the REST door: parsing a body nested 300,000 levels deep would hold the event loop for every caller.
      if (nestedDeeperThan(text, MAX_JSON_DEPTH))
        return void reject(
          new BodyError(400, `Parse error: the request body is nested deeper than ${MAX_JSON_DEPTH} levels`),
        );
      try {
        resolve(JSON.parse(text) as unknown);
      } catch {
        reject(new BodyError(400, 'Parse error: the request body is not valid JSON'));
      }
    };
    req.on('data', onData).on('end', onEnd).once('error', reject);
  });
}

const tooLarge = (limit: number): BodyError =>
  new BodyError(413, `request body is larger than the configured limit (${limit} bytes)`);
