import type { Finding, FuzzResult } from '../../test/helpers/fuzz/run.ts';

/** Percentile (nearest rank) of an ascending list. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export interface Latency {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  over100: number;
}

export function latency(ms: number[] | Float64Array): Latency {
  const sorted = Float64Array.from(ms).sort();
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1]! : 0,
    over100: sorted.filter((x) => x >= 100).length,
  };
}

/**
 * The run cut into figures: overall, by status, by route (where the time goes), by slice of the run (does it grow with
 * the audit?).
 */
export function summarize(r: FuzzResult, slices = 10) {
  const n = r.statuses.length;
  const statuses = new Map<number, number>();
  const kinds = new Map<string, number>();
  const byRoute = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    statuses.set(r.statuses[i]!, (statuses.get(r.statuses[i]!) ?? 0) + 1);
    const kind = r.kinds[i]!.startsWith('hostile:') ? r.kinds[i]!.split(':').slice(0, 2).join(':') : r.kinds[i]!;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    const route = r.routes[i]!;
    let list = byRoute.get(route);
    if (!list) byRoute.set(route, (list = []));
    list.push(r.latenciesMs[i]!);
  }
  const size = Math.ceil(n / slices);
  const overTime = Array.from({ length: slices }, (_, s) =>
    latency(r.latenciesMs.subarray(s * size, Math.min(n, (s + 1) * size))),
  );
  const routes = [...byRoute]
    .map(([route, ms]) => ({ route, ...latency(ms) }))
    .sort((a, b) => b.over100 - a.over100 || b.count - a.count);
  return {
    all: latency(r.latenciesMs),
    statuses: [...statuses].sort((a, b) => a[0] - b[0]),
    kinds: [...kinds].sort((a, b) => b[1] - a[1]),
    routes,
    overTime,
    size,
  };
}

/** One finding as a Markdown list item: the request, then the answer. */
export const findingLine = (f: Finding) =>
  `- \`${f.request.method} ${f.request.path}\` (${f.request.kind}) ${f.request.body ? `body \`${f.request.body.replace(/`/g, "'")}\` ` : ''}-> ${f.status}: \`${f.answer.replace(/`/g, "'")}\``;

/**
 * A Prometheus histogram of the service's own /metrics, summed over its labels: the bucket bound (ms)
 * under which `p` percent of the observations fall, and how many were at or over 100 ms. The service's
 * view of a request starts when its first middleware runs, so the gap to the client's latency is time
 * spent waiting before that (for a core, for the event loop, in the socket).
 */
export function serverHistogram(
  metrics: string,
  name: string,
  p = 99,
): { count: number; pBoundMs: number; over100: number } {
  const buckets = new Map<number, number>();
  for (const m of metrics.matchAll(new RegExp(`^${name}_bucket\\{[^}]*le="([^"]+)"[^}]*\\} (\\d+)`, 'gm'))) {
    const le = m[1] === '+Inf' ? Infinity : Number(m[1]);
    buckets.set(le, (buckets.get(le) ?? 0) + Number(m[2]));
  }
  const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
  const count = sorted.at(-1)?.[1] ?? 0;
  const bound = sorted.find(([, c]) => c >= (p / 100) * count)?.[0] ?? Infinity;
  const under100 = buckets.get(0.1) ?? 0;
  return { count, pBoundMs: bound * 1000, over100: count - under100 };
}
