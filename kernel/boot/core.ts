import type { AwilixContainer } from 'awilix';
import { ThreadedFanout } from '../audit/fanout-thread.ts';
import { OutboxRelay } from '../audit/outbox-relay.ts';
import { AuditPipeline } from '../audit/pipeline.ts';
import type { BootOptions } from './options.ts';
import { buildContainer } from '../container.ts';
import type { AnyPlugin } from '../define-plugin.ts';
import { ActorStateBudget, actorStatePort, DEFAULT_STATE_BYTES } from '../detection/state-budget.ts';
import { PluginLifecycle } from '../lifecycle.ts';
import { KmsMetrics, metricsPort } from '../observability/metrics.ts';
import { type OperationContribution, operationsPort } from '../operations/operation.ts';
import { OperationPipeline } from '../operations/pipeline.ts';
import { RateLimiter } from '../operations/rate-limiter.ts';
import { auditPipelinePort } from '../ports/audit-pipeline.ts';
import { type AuditFanoutSink, type AuditSink, auditFanoutPort, auditSinkPort } from '../ports/audit-sink.ts';
import { clockPort } from '../ports/clock.ts';
import { doorPort } from '../ports/door.ts';
import { journalPort, type KeyJournal } from '../ports/journal.ts';
import { loggerPort } from '../ports/logger.ts';
import { type OperationRunner, operationRunnerPort } from '../ports/operation-runner.ts';
import { type Policy, policyPort } from '../ports/policy.ts';
import { type RiskAssessor, riskPort } from '../ports/risk.ts';

/** Everything below the doors, started: the plugins, the audit pipeline, the operation pipeline and the relay. */
export interface StartedCore {
  container: AwilixContainer;
  metrics: KmsMetrics;
  audit: AuditPipeline;
  pipeline: OperationPipeline;
  relay: OutboxRelay;
  contributions: OperationContribution[];
  /** Every plugin but the doors, started in dependency order. */
  lifecycle: PluginLifecycle;
  /** The doors, created but not started (none when booted with listen: false). */
  doors: PluginLifecycle;
}

const isSink = (p: AnyPlugin) => p.provides.id === auditFanoutPort.id;

/**
 * create -> start (dependency order) for every plugin but the doors, with the audit pipeline, the operation
 * pipeline and the outbox relay between them. A failure stops what started, the fan-out thread too.
 */
export async function startCore(plugins: AnyPlugin[], opts: BootOptions): Promise<StartedCore> {
  const metrics = new KmsMetrics();
  // The audit pipeline and the operation pipeline are built from what the plugins contribute, so the
  // kernel hands plugins late-bound fronts of them: plugins that act below the audit layer can depend on them.
  let audit: AuditPipeline | undefined;
  let pipeline: OperationPipeline | undefined;
  const runner: OperationRunner = {
    run: (id, input, caller, rejected) => pipeline!.run(id, input, caller, rejected),
    list: () => pipeline!.list(),
    permitted: (principal) => pipeline!.permitted(principal),
  };
  const kernelServices: Record<string, unknown> = {
    [loggerPort.id]: opts.logger,
    [clockPort.id]: opts.clock,
    [metricsPort.id]: metrics,
    [auditPipelinePort.id]: {
      record: (r: Parameters<AuditPipeline['record']>[0]) => audit!.record(r),
      onRecord: (l: Parameters<AuditPipeline['onRecord']>[0]) => audit!.onRecord(l),
    },
    [operationRunnerPort.id]: runner,
    [actorStatePort.id]: new ActorStateBudget(opts.detectorStateBytes ?? DEFAULT_STATE_BYTES),
  };
  // With a fan-out thread the sink plugins are created and started there, not here (they passed preflight).
  const threaded = opts.fanoutThread && plugins.some(isSink);
  const local = threaded ? plugins.filter((p) => !isSink(p)) : plugins;
  const { container, wired } = buildContainer(
    local,
    kernelServices,
    opts.config,
    opts.deployment,
    opts.logger,
    opts.clock,
  );
  const all = <T>(port: string): T[] => (container.hasRegistration(port) ? container.resolve<T[]>(port) : []);
  const journal = container.hasRegistration(journalPort.id) ? container.resolve<KeyJournal>(journalPort.id) : undefined;
  let depths: () => Array<[string, number]> = () => [];
  const observer = metrics.trackAuditSinks(() => depths());
  const fanout = threaded
    ? await ThreadedFanout.start(opts.fanoutThread!.entry, opts.fanoutThread!.data, opts.logger, observer)
    : all<AuditFanoutSink>(auditFanoutPort.id);
  // Everything up to the relay may still fail the boot; the fan-out thread (and its connections) must not outlive it.
  let lifecycle: PluginLifecycle | undefined;
  try {
    audit = new AuditPipeline(container.resolve<AuditSink>(auditSinkPort.id), fanout, opts.logger, journal, {
      node: opts.deployment.nodeId,
      dataDir: opts.deployment.dataDir,
      observer,
      primaryObserver: metrics.trackAuditWrites(),
    });
    metrics.trackJournalPool(() => journal?.poolStats?.());
    depths = () => audit!.depths();
    const contributions = all<OperationContribution>(operationsPort.id);
    pipeline = new OperationPipeline(
      contributions.flatMap((c) => c.operations),
      {
        policy: container.resolve<Policy>(policyPort.id),
        risk: container.hasRegistration(riskPort.id) ? container.resolve<RiskAssessor>(riskPort.id) : undefined,
        audit,
        metrics,
        logger: opts.logger,
        clock: opts.clock,
        tracer: opts.tracer,
        rateLimiter: opts.rateLimit && new RateLimiter(opts.rateLimit),
        aliases: journal?.aliases,
      },
    );
    // Doors come last and go first: a call that arrives through one finds every plugin, the audit
    // pipeline and the relay up, and a call in flight at shutdown ends before any of them stops.
    const isDoor = (w: (typeof wired)[number]) => w.plugin.provides.id === doorPort.id;
    lifecycle = new PluginLifecycle(
      wired.filter((w) => !isDoor(w)),
      opts.logger,
    );
    const doors = new PluginLifecycle(opts.listen === false ? [] : wired.filter(isDoor), opts.logger);
    await lifecycle.start();
    const relay = new OutboxRelay(audit, opts.clock, opts.logger);
    await relay.start();
    return { container, metrics, audit, pipeline, relay, contributions, lifecycle, doors };
  } catch (err) {
    await lifecycle?.stop(); // idempotent: a failed start has stopped what it started already
    if (fanout instanceof ThreadedFanout) await fanout.stop();
    throw err;
  }
}
