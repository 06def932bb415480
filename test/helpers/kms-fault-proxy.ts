import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * pass: forward; disabled: the KEK reads Disabled (as KMS answers for a disabled key); throttle; down: cut every
 * connection.
 */
export type KmsMode = 'pass' | 'disabled' | 'throttle' | 'down';

export interface KmsFaultProxy {
  url: string;
  mode: KmsMode;
  /** X-Amz-Target of every call that reached the proxy (TrentService.Encrypt, ...). */
  calls: string[];
  close(): Promise<void>;
}

const error = (res: http.ServerResponse, type: string, message: string) => {
  res.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.1', 'x-amzn-ErrorType': type });
  res.end(JSON.stringify({ __type: type, message }));
};

/**
 * A proxy in front of moto that makes KMS behave as it does when a KEK is disabled, when it throttles,
 * or when it cannot be reached: moto itself ignores DisableKey (see shared INFRA notes), and the test
 * must not fake the KMS's successful answers, only its failures.
 */
export async function startKmsFaultProxy(target: string): Promise<KmsFaultProxy> {
  const proxy: KmsFaultProxy = { url: '', mode: 'pass', calls: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    const op = String(req.headers['x-amz-target'] ?? '');
    proxy.calls.push(op);
    if (proxy.mode === 'down') return req.socket.destroy();
    if (proxy.mode === 'throttle') return error(res, 'ThrottlingException', 'Rate exceeded');
    if (proxy.mode === 'disabled' && /Encrypt|Decrypt|GenerateDataKey/.test(op))
      return error(res, 'DisabledException', 'the key is disabled');
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const upstream = http.request(
        new URL(req.url!, target),
        { method: req.method, headers: req.headers },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (c) => body.push(c));
          answer.on('end', () => {
            let out = Buffer.concat(body);
            if (proxy.mode === 'disabled' && op.endsWith('DescribeKey')) {
              const doc = JSON.parse(out.toString('utf8'));
              doc.KeyMetadata.KeyState = 'Disabled';
              doc.KeyMetadata.Enabled = false;
              out = Buffer.from(JSON.stringify(doc));
            }
            res.writeHead(answer.statusCode!, { ...answer.headers, 'content-length': String(out.length) });
            res.end(out);
          });
        },
      );
      upstream.on('error', () => req.socket.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
