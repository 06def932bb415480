import type { Middleware } from 'koa';
import type { Registry } from 'prom-client';
import { LabelledCounter, LabelledHistogram, type CounterChild, type HistogramChild } from './labelled-metrics.ts';

/**
 * Every HTTP request by method, route template (never the raw path, so ids do not multiply series;
 * `unmatched` for paths no route serves) and status, with its latency. Outermost middleware: it sees the
 * status the error middleware settled on.
 */
export function httpMetrics(registry: Registry): Middleware {
  const requests = new LabelledCounter<'method' | 'route' | 'status'>({ name: 'svc_http_requests_total', help: 'HTTP requests answered, by method, route template and status.', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const latency = new LabelledHistogram<'method' | 'route'>({
    name: 'svc_http_request_duration_seconds', help: 'HTTP request latency, by method and route template.', labelNames: ['method', 'route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers: [registry],
  });
  // Children are looked up once per combination, by one string key.
  const counters = new Map<string, CounterChild>();
  const timers = new Map<string, HistogramChild>();
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      const method = ctx.method;
      const timerKey = `${method} ${route}`;
      let timer = timers.get(timerKey);
      if (!timer) timers.set(timerKey, (timer = latency.labels({ method, route })));
      timer.observe(Number(process.hrtime.bigint() - started) / 1e9);
      const countKey = `${timerKey} ${ctx.status}`;
      let counter = counters.get(countKey);
      if (!counter) counters.set(countKey, (counter = requests.labels({ method, route, status: String(ctx.status) })));
      counter.inc();
    }
  };
}
