import { pathOf, type Route } from './routes.ts';
import { credentialHeaders, currentCredential, type Credential } from './session.ts';

/** An answer other than 2xx, with the API's `{error, message}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined>;

let onUnauthorized: (error: ApiError) => void = () => {};

/** What to do when the server refuses the credential (401): the shell sends the user to sign in again. */
export function whenUnauthorized(handler: (error: ApiError) => void): void {
  onUnauthorized = handler;
}

function url(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== '') params.set(name, String(value));
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/**
 * One call to the public API with the signed-in user's credential: one of the console's routes
 * (routes.ts), its `:name` segments from `params`. Paths are absolute on this origin, so the console
 * works the same over TLS and behind a proxy that terminates it.
 */
export async function call<T>(
  route: Route,
  opts: {
    params?: Record<string, string>;
    query?: Query;
    body?: unknown;
    credential?: Credential;
    /** Headers of this call alone (If-Match); set first, so they never replace the credential's. */
    headers?: Record<string, string>;
  } = {},
): Promise<{ status: number; body: T }> {
  const { method } = route;
  const path = pathOf(route, opts.params);
  const credential = opts.credential ?? currentCredential();
  if (!credential) {
    const error = new ApiError(401, 'Unauthorized', 'you are not signed in');
    onUnauthorized(error);
    throw error;
  }
  const headers: Record<string, string> = {
    ...opts.headers,
    Accept: 'application/json',
    ...credentialHeaders(credential),
  };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url(path, opts.query), {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      credentials: 'omit',
      cache: 'no-store',
      redirect: 'error',
    });
  } catch {
    throw new ApiError(0, 'NetworkError', 'the service did not answer; check that it is running and reachable');
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (res.ok) return { status: res.status, body: body as T };
  const problem = (body ?? {}) as { error?: string; message?: string };
  const error = new ApiError(res.status, problem.error ?? `HTTP ${res.status}`, problem.message ?? res.statusText);
  // Only the caller's own sign-in check handles a refused credential itself.
  if (res.status === 401 && !opts.credential) onUnauthorized(error);
  throw error;
}
