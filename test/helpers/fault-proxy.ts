import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * 503: answer ServiceUnavailable; drop: cut the connection; stall: never answer; stall-body: send the headers and a
 * first byte, then nothing.
 */
export type Fault = '503' | 'drop' | 'stall' | 'stall-body';

export interface FaultProxy {
  url: string;
  /** Every request that reached the proxy, as "METHOD /path?query". */
  seen: string[];
  /** The X-Request-Id of each request in `seen`, in the same order. */
  requestIds: Array<string | undefined>;
  /** The next `times` requests whose "METHOD /path" matches get this fault instead of the service. */
  inject(match: RegExp, fault: Fault, times: number): void;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of a real service that can answer 503, cut the connection or stall, so tests can
 * watch what a client does when the network or the service fails, without faking the service itself.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const seen: string[] = [];
  const requestIds: Array<string | undefined> = [];
  const rules: Array<{ match: RegExp; fault: Fault; left: number }> = [];
  const server = http.createServer((req, res) => {
    const line = `${req.method} ${req.url}`;
    seen.push(line);
    requestIds.push(req.headers['x-request-id'] as string | undefined);
    const rule = rules.find((r) => r.left > 0 && r.match.test(line));
    if (rule) {
      rule.left--;
      if (rule.fault === 'drop') return req.socket.destroy();
      if (rule.fault === 'stall') return;
      if (rule.fault === 'stall-body') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.write('{');
      }
      res.writeHead(503, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ error: 'ServiceUnavailable', message: 'injected by the test proxy' }));
    }
    const upstream = http.request(new URL(req.url!, target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    requestIds,
    inject: (match, fault, times) => rules.push({ match, fault, left: times }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
