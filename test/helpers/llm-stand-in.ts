import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LlmRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

/**
 * A local stand-in for a language-model provider (a SaaS that cannot run here): it records each request
 * for the test to check what the service sent, and answers what `answer` returns ('hang': never).
 */
export async function llmStandIn(
  answer: (req: LlmRequest) => { status: number; body: unknown } | 'hang',
): Promise<{ url: string; requests: LlmRequest[]; close(): Promise<void> }> {
  const requests: LlmRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = {
        method: req.method!,
        path: req.url!,
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'),
      };
      requests.push(request);
      const a = answer(request);
      if (a === 'hang') return;
      res.writeHead(a.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
