import type { Pool } from 'undici';
import { openLoop } from '../open-loop.ts';
import { Cast } from './cast.ts';
import { HOSTILE } from './hostile-requests.ts';
import { Prng } from './prng.ts';
import { send, type Answer, type FuzzRequest } from './transport.ts';
import { VALID } from './valid-requests.ts';

export interface FuzzOptions {
  requests: number;
  connections: number;
  seed: number;
  /** Share of hostile requests; the rest are valid calls (and the replacements they cause). */
  hostileShare?: number;
  onProgress?: (done: number) => void;
  /**
   * Open loop: start a request every 1/ratePerSecond s whatever the answers (more than `connections` at
   * once wait in the client's pool), and measure each from when it was due. Unset: closed loop, each
   * connection sends its next request when its last one was answered.
   */
  ratePerSecond?: number;
}

/** A request the run must report: a 5xx, a connection failure, or an error answer without {error, message}. */
export interface Finding {
  request: {
    route: string;
    kind: string;
    method: string;
    path: string;
    headers: Record<string, string>;
    body?: string;
  };
  status: number;
  answer: string;
}

export interface FuzzResult {
  /** One entry per request, in the order answered. */
  routes: string[];
  kinds: string[];
  /** The answer's X-Request-Id and, for an error answer, its error code ('' when none). */
  requestIds: string[];
  errors: string[];
  statuses: Int16Array;
  latenciesMs: Float64Array;
  serverErrors: Finding[];
  connectionFailures: Finding[];
  badErrorBodies: Finding[];
  wallSeconds: number;
}

const cut = (s: string | undefined, n = 300) =>
  s === undefined ? undefined : s.length > n ? `${s.slice(0, n)}... (${s.length} characters)` : s;

/** What a finding shows of its request: no credential (a shape is enough), bodies cut short. */
function describe(req: FuzzRequest, a: Answer): Finding {
  const headers = Object.fromEntries(
    Object.entries(req.headers).map(([k, v]) => [
      k,
      k.toLowerCase() === 'authorization' ? `${v.slice(0, 16)}...` : cut(v, 80)!,
    ]),
  );
  const body = cut(req.body);
  return {
    request: {
      route: req.route,
      kind: req.kind,
      method: req.method,
      path: cut(req.path, 200)!,
      headers,
      ...(body === undefined ? {} : { body }),
    },
    status: a.status,
    answer: cut(a.text, 500)!,
  };
}

/**
 * Sets up a cast on the service at `pool`, then sends `requests` mixed requests from `connections`
 * keep-alive connections at once, drawing each from a seeded PRNG. Every answer's status and latency
 * is kept; 5xx answers, failed connections and error answers without {error, message} are reported.
 */
export async function runFuzz(
  base: string,
  pool: Pool,
  opts: FuzzOptions,
): Promise<{ cast: Cast; result: FuzzResult }> {
  const rnd = new Prng(opts.seed);
  const cast = new Cast(base);
  await cast.setUp(pool);
  const hostileShare = opts.hostileShare ?? 0.25;
  const validWeights = Object.fromEntries(Object.entries(VALID).map(([k, v]) => [k, v.weight]));
  const hostileWeights = Object.fromEntries(Object.entries(HOSTILE).map(([k, v]) => [k, v.weight]));
  const draw = (): FuzzRequest => {
    const forced = cast.forced.shift();
    if (forced) return forced;
    if (rnd.chance(hostileShare)) return HOSTILE[rnd.weighted(hostileWeights)]!.make(cast, rnd);
    return VALID[rnd.weighted(validWeights)]!.make(cast, rnd);
  };

  const n = opts.requests;
  const result: FuzzResult = {
    routes: [],
    kinds: [],
    requestIds: [],
    errors: [],
    statuses: new Int16Array(n),
    latenciesMs: new Float64Array(n),
    serverErrors: [],
    connectionFailures: [],
    badErrorBodies: [],
    wallSeconds: 0,
  };
  let drawn = 0;
  let done = 0;
  const t0 = performance.now();
  const answered = (req: FuzzRequest, a: Answer) => {
    const i = done++;
    result.routes.push(req.route);
    result.kinds.push(req.kind);
    result.requestIds.push(a.requestId ?? '');
    result.errors.push(typeof a.json?.error === 'string' ? a.json.error : '');
    result.statuses[i] = a.status;
    result.latenciesMs[i] = a.ms;
    if (a.status >= 500) result.serverErrors.push(describe(req, a));
    else if (a.status === 0) result.connectionFailures.push(describe(req, a));
    else if (a.status >= 400 && (typeof a.json?.error !== 'string' || typeof a.json?.message !== 'string'))
      result.badErrorBodies.push(describe(req, a));
    req.after?.(a);
    if (opts.onProgress && done % 5000 === 0) opts.onProgress(done);
  };
  const worker = async () => {
    while (drawn < n) {
      drawn++;
      const req = draw();
      answered(req, await send(pool, req));
    }
  };
  if (opts.ratePerSecond)
    await openLoop(
      n,
      opts.ratePerSecond,
      () => {
        const req = draw();
        return send(pool, req).then((a) => ({ req, a }));
      },
      ({ req, a }, due) => answered(req, { ...a, ms: performance.now() - due }),
    );
  else await Promise.all(Array.from({ length: opts.connections }, worker));
  result.wallSeconds = (performance.now() - t0) / 1000;
  return { cast, result };
}
