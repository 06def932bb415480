import type { AddressInfo } from 'node:net';
import type { AwilixContainer } from 'awilix';
import { AuditPipeline } from './audit/pipeline.ts';
import { buildContainer } from './container.ts';
import type { AnyPlugin, PreflightEnv } from './define-plugin.ts';
import { HttpHost } from './http/host.ts';
import { buildOpenApi, openApiYaml } from './http/openapi.ts';
import { operationalRoutes } from './http/operational-routes.ts';
import { routesPort, type RouteContribution, type RouteDef } from './http/route.ts';
import { PluginLifecycle } from './lifecycle.ts';
import { KmsMetrics, metricsPort } from './observability/metrics.ts';
import { auditFanoutPort, auditSinkPort, type AuditFanoutSink, type AuditSink } from './ports/audit-sink.ts';
import { authenticatorPort, type Authenticator } from './ports/authenticator.ts';
import { clockPort, type Clock } from './ports/clock.ts';
import { loggerPort, type Logger } from './ports/logger.ts';
import { policyPort, type Policy } from './ports/policy.ts';
import { riskPort, type RiskAssessor } from './ports/risk.ts';
import { auditPipelinePort } from './ports/audit-pipeline.ts';
import { judgePreflight, type PreflightMode, type PreflightNode } from './preflight.ts';
import { PluginRegistry } from './registry.ts';

export interface BootOptions {
  config: Record<string, unknown>;
  plugins: AnyPlugin[];
  http: { host: string; port: number; maxBodyBytes: number; shutdownGraceMs: number };
  preflightMode: PreflightMode;
  /** Checks that belong to the deployment rather than to one plugin (run with the plugins' own). */
  preflight?: PreflightNode[];
  logger: Logger;
  clock: Clock;
  version: string;
  /** Where the preflight banner and the boot tree go (stderr). */
  print: (text: string) => void;
}

export interface RunningKernel {
  address: AddressInfo;
  container: AwilixContainer;
  audit: AuditPipeline;
  /** SPEC 1 shutdown order; idempotent, so a second signal changes nothing. */
  stop(): Promise<void>;
}

export class PreflightRefused extends Error {}

const KERNEL_PORTS = new Set([loggerPort.id, clockPort.id, metricsPort.id, auditPipelinePort.id]);

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** register -> preflight -> create -> start (dependency order) -> listen. Nothing is acquired before preflight passes. */
export async function bootKernel(opts: BootOptions): Promise<RunningKernel> {
  const ordered = new PluginRegistry();
  for (const p of opts.plugins) ordered.add(p);
  const plugins = ordered.resolve(KERNEL_PORTS);

  const env: PreflightEnv = { exposed: !isLoopback(opts.http.host) };
  const tree: PreflightNode[] = [
    ...(opts.preflight ?? []),
    ...plugins.flatMap((p) => (p.preflight ? p.preflight(p.configSlice ? p.configSlice(opts.config) : opts.config, env) : [])),
  ];
  const verdict = judgePreflight(tree, opts.preflightMode);
  if (verdict.banner) opts.print(verdict.banner);
  if (!verdict.proceed) throw new PreflightRefused(verdict.banner);

  opts.print(bootTree(plugins, opts.version));
  const metrics = new KmsMetrics();
  // The audit pipeline is built lazily from the sinks, so plugins that act below the audit layer can depend on it.
  let audit: AuditPipeline | undefined;
  const kernelServices: Record<string, unknown> = {
    [loggerPort.id]: opts.logger,
    [clockPort.id]: opts.clock,
    [metricsPort.id]: metrics,
    [auditPipelinePort.id]: { record: (r: Parameters<AuditPipeline['record']>[0]) => audit!.record(r), onRecord: (l: Parameters<AuditPipeline['onRecord']>[0]) => audit!.onRecord(l) },
  };
  const { container, wired } = buildContainer(plugins, kernelServices, opts.config, opts.logger, opts.clock);
  const all = <T>(port: string): T[] => (container.hasRegistration(port) ? container.resolve<T[]>(port) : []);
  audit = new AuditPipeline(container.resolve<AuditSink>(auditSinkPort.id), all<AuditFanoutSink>(auditFanoutPort.id), opts.logger);
  const lifecycle = new PluginLifecycle(wired, opts.logger);
  await lifecycle.start();

  const featureRoutes = all<RouteContribution>(routesPort.id).flatMap((c) => c.routes);
  let yamlDoc: string | undefined;
  const routes: RouteDef[] = [
    ...featureRoutes,
    ...operationalRoutes({ metrics, probe: () => lifecycle.probe(), openApiYaml: (): string => (yamlDoc ??= openApiYaml(buildOpenApi(routes, { version: opts.version }))) }),
  ];
  const host = new HttpHost(
    routes,
    {
      authenticator: container.resolve<Authenticator>(authenticatorPort.id),
      policy: container.resolve<Policy>(policyPort.id),
      risk: container.hasRegistration(riskPort.id) ? container.resolve<RiskAssessor>(riskPort.id) : undefined,
      audit,
      metrics,
      logger: opts.logger,
      clock: opts.clock,
    },
    opts.http,
    opts.logger,
  );
  let address: AddressInfo;
  try {
    address = await host.listen();
  } catch (err) {
    await lifecycle.stop();
    throw err;
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await host.close(); // 1. HTTP unbind with grace
      await audit.stop(); // 2. background work: secondary audit queues drain ...
      await lifecycle.stop(); // ... then plugins in reverse order (timers first, journal pool last)
      metrics.clear(); // 3. metrics registry
    })());
  return { address, container, audit, stop };
}

function bootTree(plugins: AnyPlugin[], version: string): string {
  const rows = plugins.map((p) => `  ${p.provides.id.padEnd(14)} ${p.id}${p.kind ? ` (${p.kind})` : ''}: ${p.description}`);
  return [`svc-kms ${version}: plugins wired`, ...rows].join('\n');
}
