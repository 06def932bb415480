import { randomUUID } from 'node:crypto';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A thin fetch wrapper for tests: JSON in, JSON (or text) out, status kept. */
export class ApiClient {
  constructor(
    readonly base: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  async call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    const init: RequestInit = { method, headers: { ...this.headers, ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(`${this.base}${path}`, init);
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  get<T = any>(path: string) {
    return this.call<T>('GET', path);
  }

  post<T = any>(path: string, body?: unknown) {
    return this.call<T>('POST', path, body);
  }

  /**
   * Creates a key (named test-key-<uuid> unless the spec names it: names are unique) and, unless told otherwise,
   * activates it; returns its id.
   */
  async key(spec: Record<string, unknown>, activate = true): Promise<string> {
    const created = await this.post('/v1/keys', { spec: { name: `test-key-${randomUUID()}`, ...spec } });
    if (created.status !== 201) throw new Error(`create failed: ${created.status} ${JSON.stringify(created.body)}`);
    if (activate) {
      const a = await this.post(`/v1/keys/${created.body.id}/activate`);
      if (a.status !== 200) throw new Error(`activate failed: ${a.status}`);
    }
    return created.body.id;
  }

  /** The audit rows of one key, oldest first. */
  async auditOf(keyId: string): Promise<any[]> {
    const page = await this.get(`/v1/audit?key=${keyId}&limit=1000`);
    if (page.status !== 200) throw new Error(`audit read failed: ${page.status} ${JSON.stringify(page.body)}`);
    return page.body.records.reverse();
  }
}

export const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
