import { randomUUID } from 'node:crypto';
import { SvcApiError } from './errors.ts';

/** Who the caller is: the dev headers (SVC_AUTH_KIND=dev) or a bearer token (hmac, oidc, agent tokens). */
export type Credentials = { user: string; groups?: string[] } | { token: string };

export interface RetryOptions {
  /** Further attempts after the first; 0 turns retrying off. */
  retries: number;
  /** Delay before the first retry; doubled each time, with full jitter. */
  initialBackoffMs: number;
  maxBackoffMs: number;
}

export interface TransportOptions {
  baseUrl: string;
  credentials?: Credentials;
  timeoutMs: number;
  retry: RetryOptions;
  fetch: typeof fetch;
  /** Sent as X-Svc-Model and X-Svc-Prompt-Id on every call unless a call names its own (see CallOptions). */
  model?: string;
  promptId?: string;
}

export interface CallOptions {
  /** Overrides the client's timeout for this call (each attempt gets the whole budget). */
  timeoutMs?: number;
  /** Aborts the call, including a retry that is waiting. */
  signal?: AbortSignal;
  /**
   * The X-Request-Id to send (printable ASCII, at most 128 characters); a new UUID by default. It becomes the audit
   * record's correlationId.
   */
  requestId?: string;
  /**
   * The model and the prompt this call acts for (X-Svc-Model, X-Svc-Prompt-Id: at most 128 characters, no
   * control characters), audited as context agent.model and agent.promptId; override the client's for this call.
   */
  model?: string;
  promptId?: string;
}

export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** Headers of this call alone (If-Match); spread first, so they never replace the credentials or request id. */
  headers?: Record<string, string>;
  /** A list value repeats the parameter (tag=a:1&tag=b:2). */
  query?: Record<string, string | number | string[] | undefined>;
  body?: unknown;
  /**
   * Safe to send again: the call changes no key state and counts toward no rotation, so a retry
   * after a 503 or a lost connection cannot do anything twice.
   */
  idempotent: boolean;
}

const RETRYABLE_STATUS = 503;

/** One HTTP exchange with the service: credentials, request id, timeout, retries, `{error, message}` -> SvcApiError. */
export class Transport {
  constructor(private readonly options: TransportOptions) {}

  async send<T>(call: Call, opts: CallOptions = {}): Promise<T> {
    const requestId = opts.requestId ?? randomUUID();
    headerText('model', opts.model ?? this.options.model, requestId);
    headerText('promptId', opts.promptId ?? this.options.promptId, requestId);
    const attempts = call.idempotent ? this.options.retry.retries + 1 : 1;
    for (let attempt = 1; ; attempt++) {
      let answer: Answer;
      try {
        answer = await this.once(call, requestId, opts);
      } catch (err) {
        const noAnswer = err instanceof SvcApiError && (err.code === 'NetworkError' || err.code === 'Timeout');
        if (!noAnswer || attempt >= attempts) throw err;
        await sleep(this.backoff(attempt), requestId, opts.signal);
        continue;
      }
      if (answer.ok) return JSON.parse(answer.text) as T;
      const failure = errorFrom(answer, requestId);
      if (answer.status !== RETRYABLE_STATUS || attempt >= attempts) throw failure;
      await sleep(retryAfter(answer.headers) ?? this.backoff(attempt), requestId, opts.signal);
    }
  }

  private backoff(attempt: number): number {
    const { initialBackoffMs, maxBackoffMs } = this.options.retry;
    return Math.random() * Math.min(maxBackoffMs, initialBackoffMs * 2 ** (attempt - 1));
  }

  /**
   * One request and its whole body under one timeout. The timeout is an ordinary (referenced) timer, not
   * AbortSignal.timeout, whose timer is unreferenced: a call that is still outstanding keeps the process
   * alive until it is answered or times out, so a stalled connection ends in a Timeout error, never in a
   * CLI that exits silently in the middle of a call.
   */
  private async once(call: Call, requestId: string, opts: CallOptions): Promise<Answer> {
    const url = new URL(call.path, this.options.baseUrl);
    for (const [k, v] of Object.entries(call.query ?? {})) {
      if (Array.isArray(v)) for (const each of v) url.searchParams.append(k, each);
      else if (v !== undefined) url.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = {
      ...call.headers,
      Accept: 'application/json',
      'X-Request-Id': requestId,
      ...credentialHeaders(this.options.credentials),
    };
    if (call.body !== undefined) headers['Content-Type'] = 'application/json';
    const model = opts.model ?? this.options.model;
    const promptId = opts.promptId ?? this.options.promptId;
    if (model) headers['X-Svc-Model'] = model;
    if (promptId) headers['X-Svc-Prompt-Id'] = promptId;
    const timeoutMs = opts.timeoutMs ?? this.options.timeoutMs;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const signal = opts.signal ? AbortSignal.any([timeout.signal, opts.signal]) : timeout.signal;
    try {
      const res = await this.options.fetch(url, {
        method: call.method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal,
      });
      return { ok: res.ok, status: res.status, headers: res.headers, text: await res.text() };
    } catch (err) {
      if (opts.signal?.aborted)
        throw new SvcApiError('Aborted', 0, `${call.method} ${call.path} was aborted by the caller`, requestId);
      if (timeout.signal.aborted)
        throw new SvcApiError(
          'Timeout',
          0,
          `${call.method} ${call.path} got no answer within ${timeoutMs} ms`,
          requestId,
        );
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new SvcApiError(
        'NetworkError',
        0,
        `${call.method} ${url.origin}${call.path}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
        requestId,
      );
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Model and prompt id travel as headers: fetch refuses characters above U+00FF with a TypeError that would
 * read as a network error (and be retried), and the service reads bytes above 127 as Latin-1 (UTF-8 text
 * arrives garbled or partly refused as control characters). Only printable ASCII is sent; anything else is
 * InvalidField here, with status 0, before anything is sent.
 */
function headerText(name: string, value: string | undefined, requestId: string): void {
  if (value !== undefined && /[^\u0020-\u007e]/.test(value))
    throw new SvcApiError(
      'InvalidField',
      0,
      `${name} must be printable ASCII text: it is sent as an HTTP header`,
      requestId,
    );
}

/** What one attempt got back: the status, headers and the body as text. */
interface Answer {
  ok: boolean;
  status: number;
  headers: Headers;
  text: string;
}

/** The headers that carry a caller's credentials (also used by the CLI's `svc mcp` forwarder). */
export function credentialHeaders(credentials: Credentials | undefined): Record<string, string> {
  if (!credentials) return {};
  if ('token' in credentials) return { Authorization: `Bearer ${credentials.token}` };
  return {
    'X-Svc-User': credentials.user,
    ...(credentials.groups?.length ? { 'X-Svc-Groups': credentials.groups.join(',') } : {}),
  };
}

function errorFrom(answer: Answer, requestId: string): SvcApiError {
  const id = answer.headers.get('X-Request-Id') ?? requestId;
  try {
    const body = JSON.parse(answer.text) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string')
      return new SvcApiError(body.error, answer.status, String(body.message ?? ''), id);
  } catch {
    // Not the service's JSON error body (a proxy in between, perhaps): report the status and the text.
  }
  return new SvcApiError(
    `Http${answer.status}`,
    answer.status,
    `HTTP ${answer.status}: ${answer.text.slice(0, 200)}`,
    id,
  );
}

/** Retry-After in seconds, when the service or a proxy sends one. */
function retryAfter(headers: Headers): number | undefined {
  const seconds = Number(headers.get('Retry-After'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 60) * 1000 : undefined;
}

function sleep(ms: number, requestId: string, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new SvcApiError('Aborted', 0, 'aborted by the caller', requestId));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new SvcApiError('Aborted', 0, 'aborted by the caller while waiting to retry', requestId));
      },
      { once: true },
    );
  });
}
