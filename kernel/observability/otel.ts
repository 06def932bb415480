import type { Logger } from '../ports/logger.ts';

/**
 * Starts the OpenTelemetry SDK when OTEL_TRACES_EXPORTER names an exporter. SPEC's default exporter is
 * none, so with the variable unset nothing is loaded and spans stay no-ops. The SDK reads the standard
 * OTEL_* variables itself (service name, endpoint, sampler, resource attributes).
 */
export async function startTracing(env: NodeJS.ProcessEnv, logger: Logger): Promise<() => Promise<void>> {
  const exporter = env.OTEL_TRACES_EXPORTER;
  if (!exporter || exporter === 'none') return async () => {};
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({ serviceName: env.OTEL_SERVICE_NAME ?? 'svc-kms' });
  sdk.start();
  logger.info('tracing started', { exporter });
  return () => sdk.shutdown();
}
