import type { AddressInfo } from 'node:net';
import type { Tracer } from '@opentelemetry/api';
import type { AwilixContainer } from 'awilix';
import { OutboxRelay } from './audit/outbox-relay.ts';
import { ThreadedFanout } from './audit/fanout-thread.ts';
import { AuditPipeline } from './audit/pipeline.ts';
import { buildContainer } from './container.ts';
import type { AnyPlugin, PreflightEnv } from './define-plugin.ts';
import { jsonBodyReader } from './http/body.ts';
import { mountProblems } from './http/door-mounts.ts';
import { HttpHost, type HttpSettings } from './http/host.ts';
import type { NodeWorkers } from './http/node-workers.ts';
import { buildOpenApi, openApiYaml } from './http/openapi.ts';
import { operationalRoutes } from './http/operational-routes.ts';
import type { PublicRoute } from './http/route.ts';
import { tlsPreflight } from './http/tls.ts';
import { PluginLifecycle } from './lifecycle.ts';
import { isLoopback } from './net/loopback.ts';
import { operationsPort, type OperationContribution } from './operations/operation.ts';
import { OperationPipeline } from './operations/pipeline.ts';
import { KmsMetrics, metricsPort } from './observability/metrics.ts';
import { auditFanoutPort, auditSinkPort, type AuditFanoutSink, type AuditSink } from './ports/audit-sink.ts';
import { authenticatorPort, type Authenticator } from './ports/authenticator.ts';
import { clockPort, type Clock } from './ports/clock.ts';
import { RateLimiter, type RateLimit } from './operations/rate-limiter.ts';
import { ActorStateBudget, actorStatePort, DEFAULT_STATE_BYTES } from './detection/state-budget.ts';
import { journalPort, type KeyJournal } from './ports/journal.ts';
import { operationRunnerPort, type OperationRunner } from './ports/operation-runner.ts';
import { loggerPort, type Logger } from './ports/logger.ts';
import { policyPort, type Policy } from './ports/policy.ts';
import { riskPort, type RiskAssessor } from './ports/risk.ts';
import { auditPipelinePort } from './ports/audit-pipeline.ts';
import { doorPort, type Door, type DoorMount } from './ports/door.ts';
import { judgePreflight, type PreflightMode, type PreflightNode } from './preflight.ts';
import { PluginRegistry } from './registry.ts';

export interface BootOptions {
  config: Record<string, unknown>;
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
  /** This node's id in audit events (node.id) and the folder of its own files (node.dataDir). */
  node?: { id: string; dataDir: string };
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

const KERNEL_PORTS = new Set([loggerPort.id, clockPort.id, metricsPort.id, auditPipelinePort.id, operationRunnerPort.id, actorStatePort.id]);

/** register -> preflight -> create -> start (dependency order) -> listen. Nothing is acquired before preflight passes. */
export async function bootKernel(opts: BootOptions): Promise<RunningKernel> {
  const ordered = new PluginRegistry();
  for (const p of opts.plugins) ordered.add(p);
  const plugins = ordered.resolve(KERNEL_PORTS);

  const env: PreflightEnv = { exposed: !isLoopback(opts.http.host) };
  const tree: PreflightNode[] = [
    tlsPreflight(opts.http.tls, env.exposed),
    ...(opts.preflight ?? []),
    ...plugins.flatMap((p) => (p.preflight ? p.preflight(p.configSlice ? p.configSlice(opts.config) : opts.config, env) : [])),
  ];
  const verdict = judgePreflight(tree, opts.preflightMode);
  if (verdict.banner) opts.print(verdict.banner);
  if (!verdict.proceed) throw new PreflightRefused(verdict.banner);

  opts.print(bootTree(plugins, opts.version));
  const metrics = new KmsMetrics();
  // The audit pipeline and the operation pipeline are built from what the plugins contribute, so the
  // kernel hands plugins late-bound fronts of them: plugins that act below the audit layer can depend on them.
  let audit: AuditPipeline | undefined;
  let pipeline: OperationPipeline | undefined;
  const runner: OperationRunner = { run: (id, input, caller, rejected) => pipeline!.run(id, input, caller, rejected), list: () => pipeline!.list(), permitted: (principal) => pipeline!.permitted(principal) };
  const kernelServices: Record<string, unknown> = {
    [loggerPort.id]: opts.logger,
    [clockPort.id]: opts.clock,
    [metricsPort.id]: metrics,
    [auditPipelinePort.id]: { record: (r: Parameters<AuditPipeline['record']>[0]) => audit!.record(r), onRecord: (l: Parameters<AuditPipeline['onRecord']>[0]) => audit!.onRecord(l) },
    [operationRunnerPort.id]: runner,
    [actorStatePort.id]: new ActorStateBudget(opts.detectorStateBytes ?? DEFAULT_STATE_BYTES),
  };
  // With a fan-out thread the sink plugins are created and started there, not here (they passed preflight above).
  const threaded = opts.fanoutThread && plugins.some(isSink);
  const { container, wired } = buildContainer(threaded ? plugins.filter((p) => !isSink(p)) : plugins, kernelServices, opts.config, opts.logger, opts.clock);
  const all = <T>(port: string): T[] => (container.hasRegistration(port) ? container.resolve<T[]>(port) : []);
  const journal = container.hasRegistration(journalPort.id) ? container.resolve<KeyJournal>(journalPort.id) : undefined;
  let depths: () => Array<[string, number]> = () => [];
  const observer = metrics.trackAuditSinks(() => depths());
  const node = opts.node ?? { id: 'node', dataDir: 'data' };
  const fanout = threaded ? await ThreadedFanout.start(opts.fanoutThread!.entry, opts.fanoutThread!.data, opts.logger, observer) : all<AuditFanoutSink>(auditFanoutPort.id);
  // Everything up to the relay may still fail the boot; the fan-out thread (and its connections) must not outlive it.
  let contributions!: OperationContribution[];
  let lifecycle!: PluginLifecycle;
  let doors!: PluginLifecycle;
  let relay!: OutboxRelay;
  try {
    audit = new AuditPipeline(container.resolve<AuditSink>(auditSinkPort.id), fanout, opts.logger, journal, { node: node.id, dataDir: node.dataDir, observer, primaryObserver: metrics.trackAuditWrites() });
    metrics.trackJournalPool(() => journal?.poolStats?.());
    depths = () => audit!.depths();
    contributions = all<OperationContribution>(operationsPort.id);
    pipeline = new OperationPipeline(contributions.flatMap((c) => c.operations), {
      policy: container.resolve<Policy>(policyPort.id),
      risk: container.hasRegistration(riskPort.id) ? container.resolve<RiskAssessor>(riskPort.id) : undefined,
      audit,
      metrics,
      logger: opts.logger,
      clock: opts.clock,
      tracer: opts.tracer,
      rateLimiter: opts.rateLimit && new RateLimiter(opts.rateLimit),
    });
    // Doors come last and go first: a call that arrives through one finds every plugin, the audit
    // pipeline and the relay up, and a call in flight at shutdown ends before any of them stops.
    const isDoor = (w: (typeof wired)[number]) => w.plugin.provides.id === doorPort.id;
    lifecycle = new PluginLifecycle(wired.filter((w) => !isDoor(w)), opts.logger);
    doors = new PluginLifecycle(opts.listen === false ? [] : wired.filter(isDoor), opts.logger);
    await lifecycle.start();
    relay = new OutboxRelay(audit, opts.clock, opts.logger);
    await relay.start();
  } catch (err) {
    await lifecycle?.stop(); // idempotent: a failed start has stopped what it started already
    if (fanout instanceof ThreadedFanout) await fanout.stop();
    throw err;
  }
  const operations = contributions.flatMap((c) => c.operations);

  let yamlDoc: string | undefined;
  // Side by side: a worker's whole answer must come within the primary's 3 s, and each part may take 2 s or more.
  const localProbe = async () => Object.assign({}, ...(await Promise.all([lifecycle.probe(), doors.probe(), audit.health()])));
  opts.workers?.answerProbesWith(localProbe);
  const publicRoutes: PublicRoute[] = operationalRoutes({
    metrics,
    probe: opts.workers ? () => opts.workers!.readiness() : localProbe,
    nodeMetrics: opts.workers && (() => opts.workers!.metrics()),
    openApiYaml: (): string => (yamlDoc ??= openApiYaml(buildOpenApi(operations, publicRoutes, { version: opts.version, groups: Object.assign({}, ...contributions.map((c) => c.groups)) }))),
    authenticator: container.resolve<Authenticator>(authenticatorPort.id),
    logger: opts.logger,
  });
  let host: HttpHost | undefined;
  try {
    await doors.start();
    const mounts = doorMountsOf(doors.instances() as Door[]);
    const kernelPaths = [...operations.flatMap((o) => (o.http ? [o.http.path] : [])), ...publicRoutes.map((r) => r.path)];
    const problems = mountProblems(mounts, kernelPaths);
    if (problems.length) throw new Error(`doors: ${problems.join('; ')}`);
    host = new HttpHost(
      operations,
      publicRoutes,
      { pipeline, authenticator: container.resolve<Authenticator>(authenticatorPort.id), metrics, readBody: jsonBodyReader(opts.http.maxBodyBytes) },
      opts.http,
      opts.logger,
      mounts.map((m) => m.mount),
    );
    if (opts.listen !== false) await host.start();
  } catch (err) {
    await doors.stop();
    await relay.stop();
    await audit.stop();
    await lifecycle.stop();
    throw err;
  }
  const http = host;
  const address = http.address;

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
  return { address, protocol: http.protocol, reloadTls: () => http.reloadTls(), container, audit, pipeline, relay, doors: started, stop };
}

const isSink = (p: AnyPlugin) => p.provides.id === auditFanoutPort.id;

/** Every door's mounts on the service's listener, each with the door it belongs to. */
function doorMountsOf(doors: Door[]): Array<{ door: string; mount: DoorMount }> {
  return doors.flatMap((d) => (d.mounts ? d.mounts().map((mount) => ({ door: d.name, mount })) : []));
}

function bootTree(plugins: AnyPlugin[], version: string): string {
  const rows = plugins.map((p) => `  ${p.provides.id.padEnd(14)} ${p.id}${p.kind ? ` (${p.kind})` : ''}: ${p.description}`);
  return [`svc-kms ${version}: plugins wired`, ...rows].join('\n');
}
