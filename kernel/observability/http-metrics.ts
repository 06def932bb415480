import type { Middleware } from 'koa';
import type { Registry } from 'prom-client';
import { LabelledCounter, LabelledHistogram, type CounterChild, type HistogramChild } from './labelled-metrics.ts';

/**
 * Every HTTP request by method, route template (never the raw path, so ids do not multiply series;
 * `unmatched` for paths no route serves) and status, with its latency. Outermost middleware: it sees the
 * status the error middleware settled on.
 */
export function httpMetrics(registry: Registry): Middleware {
  const requests = new LabelledCounter<'method' | 'route' | 'status'>({
    name: 'svc_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new LabelledHistogram<'method' | 'route'>({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP request latency, by method and route template.',
    labelNames: ['method', 'route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  // Children are found through maps keyed by the route template and method strings themselves (the
  // router's and the parser's own string objects, whose hashes are cached), never by a string built per
  // request, and latency comes from performance.now (no BigInt per request).
  const byRoute = new Map<string, Map<string, RouteSeries>>();
  const seriesOf = (route: string, method: string): RouteSeries => {
    let byMethod = byRoute.get(route);
    if (!byMethod) byRoute.set(route, (byMethod = new Map()));
    let series = byMethod.get(method);
    if (!series) byMethod.set(method, (series = { latency: latency.labels({ method, route }), byStatus: new Map() }));
    return series;
  };
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const method = ctx.method;
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      const series = seriesOf(route, method);
      series.latency.observe((performance.now() - started) / 1000);
      const status = ctx.status;
      let counter = series.byStatus.get(status);
      if (!counter) series.byStatus.set(status, (counter = requests.labels({ method, route, status: String(status) })));
      counter.inc();
    }
  };
}

interface RouteSeries {
  latency: HistogramChild;
  byStatus: Map<number, CounterChild>;
}
