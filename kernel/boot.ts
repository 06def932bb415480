import type { AnyPlugin, PreflightEnv } from './define-plugin.ts';
import { tlsPreflight } from './http/tls.ts';
import { isLoopback } from './net/loopback.ts';
import { metricsPort } from './observability/metrics.ts';
import { clockPort } from './ports/clock.ts';
import { actorStatePort } from './detection/state-budget.ts';
import { operationRunnerPort } from './ports/operation-runner.ts';
import { loggerPort } from './ports/logger.ts';
import { auditPipelinePort } from './ports/audit-pipeline.ts';
import type { Door } from './ports/door.ts';
import { judgePreflight, type PreflightNode } from './preflight.ts';
import { startCore } from './boot/core.ts';
import type { BootOptions, RunningKernel } from './boot/options.ts';
import { openDoors } from './boot/doors.ts';
import { PluginRegistry } from './registry.ts';
import { configuredInstances } from './settings/configure.ts';

export type { BootOptions, RunningKernel } from './boot/options.ts';

export class PreflightRefused extends Error {}

const KERNEL_PORTS = new Set([
  loggerPort.id,
  clockPort.id,
  metricsPort.id,
  auditPipelinePort.id,
  operationRunnerPort.id,
  actorStatePort.id,
]);

/**
 * register -> preflight -> create -> start (dependency order) -> listen. Nothing is acquired before preflight passes.
 */
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

/**
 * Runs every check over configuration alone (TLS, the deployment's, each plugin instance's); throws PreflightRefused
 * when the verdict is to stop.
 */
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
