import { Pool } from 'undici';

/** One request of a fuzz run, as sent. `route` names the route template, `kind` why it was sent. */
export interface FuzzRequest {
  route: string;
  /** `valid`, or `hostile:<mutation>`. */
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Updates the run's state (new keys, samples to decrypt, agents to replace) from the answer. */
  after?: (answer: Answer) => void;
}

/** What came back: status 0 when the connection failed (then `text` says how). */
export interface Answer {
  status: number;
  json?: any;
  text: string;
  ms: number;
  /** X-Request-Id of the answer: the correlationId of the call's audit record, when it has one. */
  requestId?: string;
}

/** Keep-alive connections to the service under test, shared by the fuzz run's workers. */
export function connect(base: string, connections: number): Pool {
  return new Pool(base, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 4_000,
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
  });
}

/** Sends one request and times it from the first byte written to the last byte read. */
export async function send(pool: Pool, req: FuzzRequest): Promise<Answer> {
  const headers = { ...req.headers };
  if (req.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
    headers['content-type'] = 'application/json';
  const t0 = performance.now();
  try {
    const res = await pool.request({ path: req.path, method: req.method as 'GET', headers, body: req.body });
    const text = await res.body.text();
    const ms = performance.now() - t0;
    let json: unknown;
    if (String(res.headers['content-type'] ?? '').includes('json')) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    const requestId = res.headers['x-request-id'];
    return { status: res.statusCode, json, text, ms, ...(typeof requestId === 'string' ? { requestId } : {}) };
  } catch (err) {
    return { status: 0, text: `${(err as Error).name}: ${(err as Error).message}`, ms: performance.now() - t0 };
  }
}
