import { readlinkSync } from 'node:fs';
import path from 'node:path';
import type { MessagePort } from 'node:worker_threads';
import { buildContainer } from '../container.ts';
import { type AnyPlugin, dependencyRefs } from '../define-plugin.ts';
import { PluginLifecycle } from '../lifecycle.ts';
import { auditFanoutPort, type AuditFanoutSink } from '../ports/audit-sink.ts';
import { clockPort, type Clock } from '../ports/clock.ts';
import { loggerPort, type Logger } from '../ports/logger.ts';
import { parseEventJson } from './canonical-event.ts';
import type { DeliveryResult } from './fanout.ts';
import { type FromFanoutThread, REPORT_INTERVAL_MS, type ToFanoutThread } from './fanout-thread-messages.ts';
import { LocalFanout } from './secondary-delivery.ts';
import type { Deployment } from '../settings/deployment.ts';

export interface FanoutThreadSetup {
  /** The plugins that provide secondary sinks; others are not started here. */
  plugins: AnyPlugin[];
  config: Record<string, unknown>;
  deployment: Deployment;
  logger: Logger;
  clock: Clock;
  port: MessagePort;
  /** workerData[TAKEN_COUNTER]. */
  taken: BigInt64Array;
}

/**
 * The kernel services a sink may depend on in the fan-out thread: the thread has no journal, policy or audit of its
 * own.
 */
const THREAD_PORTS = new Set([loggerPort.id, clockPort.id]);

/**
 * The fan-out thread's side (see ThreadedFanout): starts the secondary sink plugins and their queues in
 * this thread, takes the event texts the request loop posts, and reports counts, depths and health
 * back at most every REPORT_INTERVAL_MS. It answers `ready` once the sinks started, or `failed`.
 */
export async function serveFanoutThread(setup: FanoutThreadSetup): Promise<void> {
  const { port, logger } = setup;
  const send = (message: FromFanoutThread) => port.postMessage(message);
  let lifecycle: PluginLifecycle | undefined;
  let fanout: LocalFanout;
  const counts = new Map<string, Map<DeliveryResult, number>>();
  try {
    const plugins = setup.plugins.filter((p) => p.provides.id === auditFanoutPort.id);
    for (const p of plugins) {
      const missing = dependencyRefs(p).filter(([, ref]) => !THREAD_PORTS.has(ref.id));
      if (missing.length)
        throw new Error(
          `the sink plugin "${p.id}" depends on ${missing.map(([, ref]) => ref.id).join(', ')}, which the fan-out thread does not have; set audit.fanoutThread (SVC_AUDIT_FANOUT_THREAD) to false`,
        );
    }
    const { container, wired } = buildContainer(
      plugins,
      { [loggerPort.id]: logger, [clockPort.id]: setup.clock },
      setup.config,
      setup.deployment,
      logger,
      setup.clock,
    );
    lifecycle = new PluginLifecycle(wired, logger);
    await lifecycle.start();
    const sinks = container.hasRegistration(auditFanoutPort.id)
      ? container.resolve<AuditFanoutSink[]>(auditFanoutPort.id)
      : [];
    fanout = new LocalFanout(sinks, logger, setup.deployment.dataDir, {
      counted: (sink, result, events) => {
        const bySink = counts.get(sink) ?? counts.set(sink, new Map()).get(sink)!;
        bySink.set(result, (bySink.get(result) ?? 0) + events);
      },
    });
  } catch (err) {
    await lifecycle?.stop();
    send({ t: 'failed', error: (err as Error).message });
    port.close();
    return;
  }
  const sinkPlugins = lifecycle; // started: the try above returns otherwise

  let last = '';
  const report = () => {
    const depths = fanout.depths();
    const health = fanout.healthNow();
    const state = JSON.stringify([depths, health]);
    if (counts.size === 0 && state === last) return;
    last = state;
    const reported = [...counts].flatMap(([sink, results]) =>
      [...results].map(([result, n]): [string, DeliveryResult, number] => [sink, result, n]),
    );
    counts.clear();
    send({ t: 'report', counts: reported, depths, health });
  };
  const reporter = setInterval(report, REPORT_INTERVAL_MS);

  port.on('message', (message: ToFanoutThread) => {
    switch (message.t) {
      case 'events':
        Atomics.add(setup.taken, 0, 1n); // taken before any of it is offered, let alone sent: see TAKEN_COUNTER
        for (const text of message.texts) fanout.offer(parseEventJson(text));
        return;
      case 'probe':
        sinkPlugins.probe().then(
          (checks) => send({ t: 'probed', id: message.id, checks: { ...checks, ...fanout.healthNow() } }),
          (err) =>
            send({
              t: 'probed',
              id: message.id,
              checks: {
                ...fanout.healthNow(),
                'audit-fanout-thread': { ok: false, detail: `a sink's probe failed: ${(err as Error).message}` },
              },
            }),
        );
        return;
      case 'replay':
        fanout.replayDeadLetters(message.sink).then(
          (outcomes) => send({ t: 'replayed', id: message.id, outcomes }),
          (err) => send({ t: 'replayed', id: message.id, error: (err as Error).message }),
        );
        return;
      case 'stop':
        void (async () => {
          await fanout.stop();
          await sinkPlugins.stop();
          clearInterval(reporter);
          report();
          send({ t: 'stopped' });
          port.close();
        })();
        return;
    }
  });
  // The thread's id lets an operator (or bench:audit-sinks) give the thread a core of its own: taskset -p -c N <tid>.
  logger.info('audit fan-out thread started', { sinks: fanout.sinks().map((s) => s.name), tid: threadId() });
  send({ t: 'ready', sinks: fanout.sinks() });
}

/** The kernel's id of the calling thread on Linux (/proc/thread-self is <pid>/task/<tid>); undefined elsewhere. */
function threadId(): number | undefined {
  try {
    return Number(path.basename(readlinkSync('/proc/thread-self')));
  } catch {
    return undefined;
  }
}
