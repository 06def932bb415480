import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface PostAnswer {
  status: number;
}

/**
 * One POST on Node's own HTTP client over a keep-alive pool, the answer read to the end and dropped.
 * node:http rather than fetch: a sink sends one request per audit event, and fetch's stream machinery
 * costs several times more CPU per request. Redirects are not followed (the caller sees the 3xx).
 */
export class KeepAlivePoster {
  private readonly agent: HttpAgent | HttpsAgent;
  private readonly send: typeof httpRequest;

  constructor(
    private readonly url: URL,
    maxSockets: number,
  ) {
    const secure = url.protocol === 'https:';
    this.agent = secure ? new HttpsAgent({ keepAlive: true, maxSockets }) : new HttpAgent({ keepAlive: true, maxSockets });
    this.send = secure ? httpsRequest : httpRequest;
  }

  post(body: string, headers: Record<string, string>, timeoutMs: number): Promise<PostAnswer> {
    return new Promise((resolve, reject) => {
      const req = this.send(this.url, { method: 'POST', agent: this.agent, headers: { ...headers, 'Content-Length': Buffer.byteLength(body) }, timeout: timeoutMs }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
