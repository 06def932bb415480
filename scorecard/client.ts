import { request } from 'node:http';

export interface Answer {
  status: number;
  body: any;
}

/** One JSON call from a chosen loopback address (127.0.0.0/8), so that traffic has a source address. */
export function call(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; user?: string; from?: string; body?: unknown } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const data = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const headers: Record<string, string | number> = {};
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    if (opts.user) headers['X-Svc-User'] = opts.user;
    if (data) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) });
    const req = request(`${base}${path}`, { method, headers, localAddress: opts.from ?? '127.0.0.1' }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(data);
  });
}
