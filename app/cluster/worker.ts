import cluster from 'node:cluster';
import promClient from 'prom-client';
import type { RunningKernel } from '../../kernel/boot.ts';
import type { NodeWorkers } from '../../kernel/http/node-workers.ts';
import type { ReadinessChecks } from '../../kernel/http/readiness.ts';
import { metricsPort, type KmsMetrics } from '../../kernel/observability/metrics.ts';
import { isServiceLogger } from '../../kernel/logger.ts';
import type { Logger } from '../../kernel/ports/logger.ts';
import { isSvcMessage, type PrimaryMessage, WORKER_SLOT_ENV, type WorkerMessage, workerName } from './messages.ts';

/** How long a worker waits for the primary's answer about the whole node before it answers without it. */
const NODE_ANSWER_MS = 6_000;

export interface ClusterWorker {
  slot: number;
  /** The process's logger with `worker: w<slot>` on every line. */
  logger: Logger;
  /** /metrics and /readyz for the whole node, through the primary. */
  workers: NodeWorkers;
  /** Tells the primary this worker serves; `shutdown` runs if the primary goes away (no worker outlives it). */
  serving(kernel: RunningKernel, shutdown: (reason: string) => void): void;
}

/** This process's part in a cluster: undefined unless the primary forked it as one of the node's workers. */
export function joinCluster(logger: Logger): ClusterWorker | undefined {
  if (!cluster.isWorker || !process.env[WORKER_SLOT_ENV]) return undefined;
  const slot = Number(process.env[WORKER_SLOT_ENV]);
  const name = workerName(slot);
  // The process's own logger keeps its level setting and names the worker on every line; a plain one is wrapped.
  if (isServiceLogger(logger)) logger.configure({ worker: name });
  const named: Logger = isServiceLogger(logger)
    ? logger
    : {
        info: (msg, fields) => logger.info(msg, { worker: name, ...fields }),
        warn: (msg, fields) => logger.warn(msg, { worker: name, ...fields }),
        error: (msg, fields) => logger.error(msg, { worker: name, ...fields }),
      };
  // Answers the primary's requests for this worker's metrics (prom-client's aggregation protocol).
  new promClient.AggregatorRegistry();
  let localProbe: (() => Promise<ReadinessChecks>) | undefined;
  let nextId = 0;
  const waiting = new Map<number, (answer: PrimaryMessage) => void>();
  const send = (message: WorkerMessage) => process.send?.(message);

  process.on('message', (message: unknown) => {
    if (!isSvcMessage(message)) return;
    const m = message as PrimaryMessage;
    if (m.svc === 'probe') {
      const probe = localProbe ?? (async () => ({ [`worker:${name}`]: { ok: false, state: 'starting' } }));
      probe().then(
        (checks) => send({ svc: 'probe-answer', id: m.id, checks }),
        (err) =>
          send({
            svc: 'probe-answer',
            id: m.id,
            checks: { [`worker:${name}`]: { ok: false, state: 'unavailable', detail: (err as Error).message } },
          }),
      );
      return;
    }
    waiting.get(m.id)?.(m);
  });

  const ask = (request: (id: number) => WorkerMessage): Promise<PrimaryMessage | undefined> =>
    new Promise((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve(undefined);
      }, NODE_ANSWER_MS);
      waiting.set(id, (answer) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(answer);
      });
      send(request(id));
    });

  const workers: NodeWorkers = {
    answerProbesWith: (local) => (localProbe = local),
    metrics: async () => {
      const answer = await ask((id) => ({ svc: 'node-metrics', id }));
      if (answer?.svc !== 'node-metrics-answer' || answer.text === undefined)
        throw new Error(
          `the node's metrics could not be gathered from its workers: ${answer?.svc === 'node-metrics-answer' ? answer.error : 'the primary did not answer'}`,
        );
      return answer.text;
    },
    readiness: async () => {
      const answer = await ask((id) => ({ svc: 'node-readiness', id }));
      if (answer?.svc === 'node-readiness-answer') return answer.checks;
      // Without the primary this worker can speak only for itself, and the node is not whole.
      const own = localProbe ? await localProbe() : {};
      return {
        ...Object.fromEntries(Object.entries(own).map(([check, result]) => [`${name}:${check}`, result])),
        primary: { ok: false, state: 'unavailable', detail: 'the primary did not answer' },
      };
    },
  };

  return {
    slot,
    logger: named,
    workers,
    serving(kernel, shutdown) {
      promClient.AggregatorRegistry.setRegistries([kernel.container.resolve<KmsMetrics>(metricsPort.id).registry]);
      // The primary died (even by SIGKILL): nothing supervises or drains this worker any more, so it stops by itself.
      process.on('disconnect', () => shutdown('primary exited'));
      const address = kernel.address!;
      send({ svc: 'serving', protocol: kernel.protocol, host: address.address, port: address.port });
      named.info('worker listening', {
        protocol: kernel.protocol,
        host: address.address,
        port: address.port,
        pid: process.pid,
      });
    },
  };
}
