import { createRequire } from 'node:module';
import type { Dispatcher, Pool } from 'undici';

/**
 * POSTs on a pool of kept-alive connections to the receiver, several on one connection before their
 * answers (HTTP/1.1 pipelining: fewer connections, several answers read at once), through undici's
 * dispatch API: no response stream and no promise per stage, just the status; the answer's body is read
 * and dropped. Each POST costs the node CPU on its request loop (about 31 us at 10,000 a second,
 * `npm run bench:sink-cost`; `pool.request` and one POST per connection at a time took 36). Redirects
 * are not followed (the caller sees the 3xx).
 */
export class KeepAlivePoster {
  private readonly pool: Pool;
  private readonly path: string;

  /** `inFlight` POSTs at most, `pipelining` of them on one connection (so inFlight / pipelining connections). */
  constructor(url: URL, inFlight: number, pipelining: number) {
    const connections = Math.ceil(Math.max(1, inFlight) / pipelining);
    // undici is loaded when a webhook sink is made, not with the module: other deployments never pay for it.
    const { Pool } = createRequire(import.meta.url)('undici') as typeof import('undici');
    this.pool = new Pool(url.origin, { connections, pipelining, keepAliveTimeout: 30_000 });
    this.path = `${url.pathname}${url.search}`;
  }

  /**
   * Resolves with the receiver's status code; rejects on a transport error or when no answer came within `timeoutMs`.
   */
  post(body: string, headers: Record<string, string>, timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      // idempotent and not blocking, or undici would not pipeline a POST: a delivery may be sent twice
      // (after a connection fails with POSTs in flight), which the receiver sees by X-Svc-Event-Id, as a retry.
      const options: Dispatcher.DispatchOptions = {
        method: 'POST',
        path: this.path,
        headers,
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        idempotent: true,
        blocking: false,
      };
      this.pool.dispatch(options, new StatusOnly(resolve, reject, timeoutMs));
    });
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}

/** A dispatch handler that keeps the status, drops the body and settles once the answer has ended. */
class StatusOnly implements Dispatcher.DispatchHandler {
  private status = 0;

  constructor(
    private readonly resolve: (status: number) => void,
    private readonly reject: (err: Error) => void,
    private readonly timeoutMs: number,
  ) {}

  onRequestStart(): void {}

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
  }

  onResponseData(): void {}

  onResponseEnd(): void {
    this.resolve(this.status);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error & { code?: string }): void {
    const timedOut = err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT';
    this.reject(new Error(timedOut ? `no answer within ${this.timeoutMs} ms` : err.message));
  }
}
