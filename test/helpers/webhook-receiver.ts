import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedPost {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

export interface WebhookReceiver {
  url: string;
  /** Every request, with the status it was answered. */
  posts: ReceivedPost[];
  /** Bodies answered 2xx, parsed. */
  accepted(): any[];
  /** The statuses to answer next, in order; afterwards 200. */
  answer(...statuses: number[]): void;
  /** Closes the listener (connection refused) until `up`. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 for webhook sinks: records what arrives, answers what the test scripts. */
export async function webhookReceiver(): Promise<WebhookReceiver> {
  const posts: ReceivedPost[] = [];
  const script: number[] = [];
  let port = 0;
  let server: Server;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const status = script.shift() ?? 200;
          posts.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
          res.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
        });
      });
      server.keepAliveTimeout = 1000;
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  await listen();
  return {
    url: `http://127.0.0.1:${port}/audit`,
    posts,
    accepted: () => posts.filter((p) => p.status < 300).map((p) => JSON.parse(p.body)),
    answer: (...statuses) => void script.push(...statuses),
    down: stop,
    up: listen,
    close: stop,
  };
}
