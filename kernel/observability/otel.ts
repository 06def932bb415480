import { trace, type Tracer } from '@opentelemetry/api';
import { outboundUrlProblem } from '../net/outbound-url.ts';
import type { Logger } from '../ports/logger.ts';

export interface Tracing {
  /** Undefined when no exporter is configured: the pipeline then makes no spans. */
  tracer: Tracer | undefined;
  shutdown(): Promise<void>;
}

const EXPORTERS = new Set(['otlp', 'console', 'none']);
const PROTOCOLS = new Set(['http/protobuf', 'http/json', 'grpc']);

/**
 * Starts the OpenTelemetry SDK for traces when OTEL_TRACES_EXPORTER is `otlp` or `console` (default
 * none: nothing is loaded and every span is a no-op). The SDK itself reads the standard variables:
 * OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL (http/protobuf by default,
 * http/json, grpc), sampler, resource attributes. Metrics stay on /metrics and logs on stderr, so the
 * SDK's own metric and log exporters are not started. The returned tracer is handed to the pipeline.
 */
export async function startTracing(env: NodeJS.ProcessEnv, logger: Logger): Promise<Tracing> {
  const exporter = (env.OTEL_TRACES_EXPORTER ?? 'none').trim() || 'none';
  if (!EXPORTERS.has(exporter))
    throw new Error(`OTEL_TRACES_EXPORTER must be otlp, console or none, not "${exporter}"`);
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  if (exporter === 'otlp' && !PROTOCOLS.has(protocol))
    throw new Error(`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http/protobuf, http/json or grpc, not "${protocol}"`);
  if (exporter === 'none') return { tracer: undefined, shutdown: async () => {} };
  // Spans name operations, keys and callers: the collector is held to the rule of every outbound URL.
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT']) {
    const endpoint = exporter === 'otlp' ? env[name]?.trim() : undefined;
    const problem = endpoint ? outboundUrlProblem(endpoint) : undefined;
    if (problem) throw new Error(`${name} ${problem}`);
  }
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || 'svc-kms',
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  logger.info('tracing started', { exporter, ...(exporter === 'otlp' ? { protocol } : {}) });
  return { tracer: trace.getTracer('svc-kms'), shutdown: () => sdk.shutdown() };
}
