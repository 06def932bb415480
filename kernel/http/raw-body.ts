import type { IncomingMessage } from 'node:http';
import { SvcError } from '../errors.ts';

/**
 * A door's raw request body (the AWS door's signature covers its bytes), up to `limit`: a larger one is
 * 413 PayloadTooLarge and stops being read at the limit, so an oversized request costs no more memory
 * than the limit. Node discards the rest of the body once the answer is sent.
 */
export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () =>
    new SvcError('PayloadTooLarge', `request body is larger than the configured limit (${limit} bytes)`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData).off('end', onEnd);
      reject(tooLarge());
    };
    const onEnd = (): void => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    req.on('data', onData).on('end', onEnd).once('error', reject);
  });
}
