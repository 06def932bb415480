import cluster, { type Worker } from 'node:cluster';
import promClient from 'prom-client';
import type { ReadinessChecks } from '../../kernel/http/readiness.ts';
import type { Logger } from '../../kernel/ports/logger.ts';
import { isSvcMessage, type PrimaryMessage, WORKER_SLOT_ENV, type WorkerMessage, workerName } from './messages.ts';

/** A worker that served this long before it died is restarted at once; one that died sooner, after a growing pause. */
const HEALTHY_AFTER_MS = 30_000;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** How long a worker has to answer a readiness probe before it counts as unresponsive. */
const PROBE_MS = 3_000;

interface Slot {
  n: number;
  worker?: Worker;
  servingSince?: number;
  /** Deaths in a row of workers that did not serve HEALTHY_AFTER_MS. */
  crashes: number;
  restart?: NodeJS.Timeout;
}

export interface Serving {
  protocol: 'http' | 'https';
  host: string;
  port: number;
}

/**
 * The primary of a node with several workers: forks one worker per slot on the one listener, answers
 * the workers' questions about the whole node (/metrics, /readyz), replaces a worker that dies (with a
 * pause that grows while replacements keep dying early, so a crash loop does not spin), and on shutdown
 * has every worker drain (each runs the node's own shutdown order) before it exits itself.
 */
export class WorkerSupervisor {
  private readonly slots: Slot[];
  private readonly aggregator = new promClient.AggregatorRegistry();
  private draining = false;
  /** Set once every worker served for the first time; before that a worker that dies fails the boot instead. */
  private booted = false;
  private nextProbe = 0;
  private readonly probes = new Map<
    number,
    { answers: Map<number, ReadinessChecks>; expected: Set<number>; done: () => void }
  >();

  constructor(
    count: number,
    private readonly logger: Logger,
  ) {
    this.slots = Array.from({ length: count }, (_, i) => ({ n: i + 1, crashes: 0 }));
    cluster.on('message', (worker, message: unknown) => {
      if (isSvcMessage(message)) this.onMessage(worker, message as WorkerMessage);
    });
  }

  /**
   * Starts the first worker alone (it creates what the node's files need on first boot: the schema, the
   * KEK file beside an SQLite journal), then the others together. Resolves once all serve; rejects if
   * one exits first, having stopped the rest.
   */
  async start(): Promise<Serving> {
    const first = await this.boot([this.slots[0]!]);
    await this.boot(this.slots.slice(1));
    this.booted = true;
    // One that died while the others were starting is replaced now.
    for (const slot of this.slots)
      if (slot.worker?.isDead())
        this.onExit(slot, slot.worker, slot.worker.process.exitCode, slot.worker.process.signalCode);
    return first;
  }

  /**
   * Asks every worker to stop (SIGTERM: each drains as a single node would) and waits until all have exited; true when
   * all exited cleanly.
   */
  async drain(signal: NodeJS.Signals, killAfterMs: number): Promise<boolean> {
    this.draining = true;
    let clean = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        clearTimeout(slot.restart);
        const worker = slot.worker;
        if (!worker || worker.isDead()) return;
        const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
        worker.process.kill(signal);
        const timer = setTimeout(() => {
          this.logger.error('worker did not stop in time; killed', {
            worker: workerName(slot.n),
            afterMs: killAfterMs,
          });
          worker.process.kill('SIGKILL');
        }, killAfterMs);
        const code = await exited;
        clearTimeout(timer);
        if (code !== 0) clean = false;
      }),
    );
    return clean;
  }

  /** Passes a signal on to every live worker (SIGHUP: re-read the TLS files). */
  forward(signal: NodeJS.Signals): void {
    for (const slot of this.slots) if (slot.worker && !slot.worker.isDead()) slot.worker.process.kill(signal);
  }

  private boot(slots: Slot[]): Promise<Serving> {
    return Promise.all(slots.map((slot) => this.fork(slot))).then(
      (serving) => serving[0]!,
      async (err) => {
        await this.drain('SIGTERM', 10_000);
        throw err;
      },
    );
  }

  private fork(slot: Slot): Promise<Serving> {
    const worker = cluster.fork({ [WORKER_SLOT_ENV]: String(slot.n) });
    slot.worker = worker;
    slot.servingSince = undefined;
    return new Promise<Serving>((resolve, reject) => {
      const onMessage = (message: unknown) => {
        if (!isSvcMessage(message) || (message as WorkerMessage).svc !== 'serving') return;
        const { protocol, host, port } = message as Extract<WorkerMessage, { svc: 'serving' }>;
        slot.servingSince = Date.now();
        worker.off('exit', onExit);
        resolve({ protocol, host, port });
      };
      const onExit = (code: number | null, signal: string | null) => {
        worker.off('message', onMessage);
        reject(
          new Error(
            `worker ${workerName(slot.n)} exited before it served (${signal ? `signal ${signal}` : `exit code ${code}`}); its log above says why`,
          ),
        );
      };
      worker.on('message', onMessage);
      worker.once('exit', onExit);
      worker.on('exit', (code, signal) => this.onExit(slot, worker, code, signal));
    });
  }

  private onExit(slot: Slot, worker: Worker, code: number | null, signal: string | null): void {
    if (this.draining || !this.booted || slot.worker !== worker) return;
    const served = slot.servingSince ? Date.now() - slot.servingSince : 0;
    slot.crashes = served >= HEALTHY_AFTER_MS ? 0 : slot.crashes + 1;
    const pauseMs = slot.crashes <= 1 ? 0 : Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (slot.crashes - 2));
    this.logger.error('worker exited; starting a replacement', {
      worker: workerName(slot.n),
      pid: worker.process.pid,
      code,
      signal,
      servedMs: served,
      restartInMs: pauseMs,
    });
    slot.worker = undefined;
    slot.restart = setTimeout(() => {
      if (this.draining) return;
      // A replacement that dies before it serves is an early crash like any other: its exit schedules the next try.
      this.fork(slot).then(
        () => this.logger.info('worker replaced', { worker: workerName(slot.n), pid: slot.worker?.process.pid }),
        (err) =>
          this.logger.error('replacement worker failed to start', {
            worker: workerName(slot.n),
            error: (err as Error).message,
          }),
      );
    }, pauseMs);
  }

  private onMessage(worker: Worker, message: WorkerMessage): void {
    const reply = (answer: PrimaryMessage) => {
      if (worker.isConnected()) worker.send(answer);
    };
    if (message.svc === 'node-metrics') {
      this.aggregator.clusterMetrics().then(
        (text) => reply({ svc: 'node-metrics-answer', id: message.id, text }),
        (err) => reply({ svc: 'node-metrics-answer', id: message.id, error: (err as Error).message }),
      );
    } else if (message.svc === 'node-readiness') {
      void this.readiness().then((checks) => reply({ svc: 'node-readiness-answer', id: message.id, checks }));
    } else if (message.svc === 'probe-answer') {
      const probe = this.probes.get(message.id);
      const slot = this.slots.find((s) => s.worker === worker);
      if (!probe || !slot) return;
      probe.answers.set(slot.n, message.checks);
      probe.expected.delete(slot.n);
      if (probe.expected.size === 0) probe.done();
    }
  }

  /**
   * Every slot's checks, named `w<N>:<check>`, and `worker:w<N>` for each slot: ok only while its worker serves and
   * answered.
   */
  private async readiness(): Promise<ReadinessChecks> {
    const id = this.nextProbe++;
    const live = this.slots.filter((s) => s.worker?.isConnected() && s.servingSince);
    const answers = new Map<number, ReadinessChecks>();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, PROBE_MS);
      const expected = new Set(live.map((s) => s.n));
      function finish() {
        clearTimeout(timer);
        resolve();
      }
      this.probes.set(id, { answers, expected, done: finish });
      for (const slot of live) slot.worker!.send({ svc: 'probe', id } satisfies PrimaryMessage);
      if (expected.size === 0) finish();
    });
    this.probes.delete(id);
    const checks: ReadinessChecks = {};
    for (const slot of this.slots) {
      const name = workerName(slot.n);
      const answer = answers.get(slot.n);
      if (!slot.worker || !slot.servingSince) checks[`worker:${name}`] = { ok: false, state: 'restarting' };
      else if (!answer)
        checks[`worker:${name}`] = { ok: false, state: 'unresponsive', detail: `no answer within ${PROBE_MS} ms` };
      else {
        checks[`worker:${name}`] = { ok: true };
        for (const [check, result] of Object.entries(answer)) checks[`${name}:${check}`] = result;
      }
    }
    return checks;
  }
}
