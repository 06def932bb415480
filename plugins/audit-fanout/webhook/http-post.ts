import { Pool } from 'undici';

export interface PostAnswer {
  status: number;
}

/**
 * POSTs on a pool of kept-alive connections to the receiver (undici's Pool: one connection per delivery
 * in flight, no pipelining), the answer read to the end and dropped. Measured on the service's own
 * sink load (one small signed event per POST, 4 and 16 in flight): about 36 and 26 us of CPU per POST,
 * against 54 and 44 us for node:http with a keep-alive Agent and several times that for fetch.
 * Redirects are not followed (the caller sees the 3xx).
 */
export class KeepAlivePoster {
  private readonly pool: Pool;
  private readonly path: string;

  constructor(url: URL, connections: number) {
    this.pool = new Pool(url.origin, { connections: Math.max(1, connections), pipelining: 1, keepAliveTimeout: 30_000 });
    this.path = `${url.pathname}${url.search}`;
  }

  async post(body: string, headers: Record<string, string>, timeoutMs: number): Promise<PostAnswer> {
    const answer = await this.pool.request({ method: 'POST', path: this.path, headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs }).catch((err: Error & { code?: string }) => {
      throw new Error(err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT' ? `no answer within ${timeoutMs} ms` : err.message);
    });
    await answer.body.dump();
    return { status: answer.statusCode };
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
