import type { AddressInfo } from 'node:net';
import type { Tracer } from '@opentelemetry/api';
import type { AwilixContainer } from 'awilix';
import type { OutboxRelay } from './audit/outbox-relay.ts';
import type { AuditPipeline } from './audit/pipeline.ts';
import type { AnyPlugin, PreflightEnv } from './define-plugin.ts';
import type { HttpSettings } from './http/host.ts';
import type { NodeWorkers } from './http/node-workers.ts';
import { tlsPreflight } from './http/tls.ts';
import { isLoopback } from './net/loopback.ts';
import type { OperationPipeline } from './operations/pipeline.ts';
import { metricsPort } from './observability/metrics.ts';
import { clockPort, type Clock } from './ports/clock.ts';
import type { RateLimit } from './operations/rate-limiter.ts';
import { actorStatePort } from './detection/state-budget.ts';
import { operationRunnerPort } from './ports/operation-runner.ts';
import { loggerPort, type Logger } from './ports/logger.ts';
import { auditPipelinePort } from './ports/audit-pipeline.ts';
import type { Door } from './ports/door.ts';
import { judgePreflight, type PreflightMode, type PreflightNode } from './preflight.ts';
import { startCore } from './boot/core.ts';
import { openDoors } from './boot/doors.ts';
import { PluginRegistry } from './registry.ts';
import { configuredInstances } from './settings/configure.ts';
import type { Deployment } from './settings/deployment.ts';

export interface BootOptions {
  config: Record<string, unknown>;
  /** What the deployment decided, handed to every plugin's `configure` beside its own settings. */
  deployment: Deployment;
  plugins: AnyPlugin[];
  http: HttpSettings;
  preflightMode: PreflightMode;
  /** Checks that belong to the deployment rather than to one plugin (run with the plugins' own). */
  preflight?: PreflightNode[];
  logger: Logger;
  clock: Clock;
  version: string;
  /** The tracer of the started OpenTelemetry SDK; without one, spans are no-ops. */
  tracer?: Tracer;
  /** Per-principal rate limits of the operation pipeline; none when absent. */
  rateLimit?: RateLimit;
  /** Bytes of actor state all detectors together may keep (DEFAULT_STATE_BYTES when absent). */
  detectorStateBytes?: number;
  /** false: start every plugin but open no HTTP listener (the server's own commands, such as rewrap). */
  listen?: boolean;
  /** Where the preflight banner and the boot tree go (stderr). */
  print: (text: string) => void;
  /** Set when this process is one of several workers of the node: /metrics and /readyz then answer for all of them. */
  workers?: NodeWorkers;
  /**
   * Runs the secondary audit sinks on a worker thread instead of the request loop (audit.fanoutThread):
   * `entry` is a module that calls serveFanoutThread with the same plugins and config, `data` its workerData.
   */
  fanoutThread?: { entry: URL; data: Record<string, unknown> };
}

export interface RunningKernel {
  /** Where HTTP listens; undefined when booted with listen: false. */
  address: AddressInfo | undefined;
  container: AwilixContainer;
  audit: AuditPipeline;
  pipeline: OperationPipeline;
  relay: OutboxRelay;
  /** Every started door: the kernel's own (http) first, then the plugins' (none when booted with listen: false). */
  doors: Door[];
  /** https when `http.tls` names a certificate and key. */
  protocol: 'http' | 'https';
  /** Re-reads the TLS files for new connections (SIGHUP); false when the service speaks plain HTTP. */
  reloadTls(): boolean;
  /** Stops doors first, then background work and the audit pipeline, then plugins in reverse start order, metrics last; idempotent, so a second signal changes nothing. */
  stop(): Promise<void>;
}

export class PreflightRefused extends Error {}

const KERNEL_PORTS = new Set([
  loggerPort.id,
  clockPort.id,
  metricsPort.id,
  auditPipelinePort.id,
  operationRunnerPort.id,
  actorStatePort.id,
]);

/** register -> preflight -> create -> start (dependency order) -> listen. Nothing is acquired before preflight passes. */
export async function bootKernel(opts: BootOptions): Promise<RunningKernel> {
  const ordered = new PluginRegistry();
  for (const p of opts.plugins) ordered.add(p);
  const plugins = ordered.resolve(KERNEL_PORTS);
  passPreflight(plugins, opts);
  opts.print(bootTree(plugins, opts.version));

  const core = await startCore(plugins, opts);
  const http = await openDoors(core, opts);
  const { audit, relay, lifecycle, doors, metrics } = core;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await Promise.all([http.stop(), doors.stop()]); // 1. every door: HTTP unbinds with grace, plugin doors close
      await relay.stop(); // 2. background work: the outbox relay, secondary audit queues drain ...
      await audit.stop();
      await lifecycle.stop(); // ... then plugins in reverse order (timers first, journal pool last)
      metrics.clear(); // 3. metrics registry
    })());
  const started: Door[] = opts.listen === false ? [] : [http, ...(doors.instances() as Door[])];
  return {
    address: http.address,
    protocol: http.protocol,
    reloadTls: () => http.reloadTls(),
    container: core.container,
    audit,
    pipeline: core.pipeline,
    relay,
    doors: started,
    stop,
  };
}

/** Runs every check over configuration alone (TLS, the deployment's, each plugin instance's); throws PreflightRefused when the verdict is to stop. */
function passPreflight(plugins: AnyPlugin[], opts: BootOptions): void {
  const env: PreflightEnv = { exposed: !isLoopback(opts.http.host) };
  const tree: PreflightNode[] = [
    tlsPreflight(opts.http.tls, env.exposed),
    ...(opts.preflight ?? []),
    ...plugins.flatMap((p) =>
      p.preflight
        ? configuredInstances(p, opts.config, opts.deployment).flatMap((i) => p.preflight!(i.config, env))
        : [],
    ),
  ];
  const verdict = judgePreflight(tree, opts.preflightMode);
  if (verdict.banner) opts.print(verdict.banner);
  if (!verdict.proceed) throw new PreflightRefused(verdict.banner);
}

function bootTree(plugins: AnyPlugin[], version: string): string {
  const rows = plugins.map(
    (p) => `  ${p.provides.id.padEnd(14)} ${p.id}${p.kind ? ` (${p.kind})` : ''}: ${p.description}`,
  );
  return [`svc-kms ${version}: plugins wired`, ...rows].join('\n');
}
