import type { Worker } from 'node:worker_threads';
import type { Logger } from '../ports/logger.ts';
import { startModuleWorker } from '../threads/module-worker.ts';
import type { AuditEvent } from './canonical-event.ts';
import type { ReplayOutcome } from './dead-letter-replay.ts';
import type { FanoutObserver } from './fanout.ts';
import {
  type FromFanoutThread,
  TAKEN_COUNTER,
  type ThreadSink,
  type ToFanoutThread,
} from './fanout-thread-messages.ts';
import { MainThreadDeadLetters } from './main-thread-dead-letters.ts';
import type { SecondaryDelivery, SinkHealth } from './secondary-delivery.ts';

/** Texts posted to the thread at once at most; fewer go at the end of the event-loop turn. */
const POST_BATCH = 512;
/** How long /readyz waits for the thread's answer: above its sinks' own 2 s probes, within a worker's 3 s. */
const PROBE_MS = 2_500;
/** How long a starting thread may take to start its sinks. */
const START_MS = 30_000;
/** Restart waits: from 1 s, doubling, at most 30 s; a thread that ran this long resets them. */
const RESTART_MIN_MS = 1_000;
const RESTART_MAX_MS = 30_000;
const THREAD_CHECK = 'audit-fanout-thread';

type Answer = Extract<FromFanoutThread, { id: number }>;

/**
 * The secondary sinks on a worker thread of their own (audit.fanoutThread): the request loop only turns
 * each event into its JSON text and posts the texts in batches, so the sinks' CPU (HTTP, Kafka and NATS
 * clients, HMAC) runs on another core when the machine has one. The thread (fanout-thread-host.ts) runs
 * the same queues, retries and dead-letter files as the request loop would, and reports counts, depths,
 * health and how many batches it has taken into its queues.
 *
 * Until the thread has taken a batch into its queues (TAKEN_COUNTER), the batch stays here: at most as many events as
 * the largest
 * sink queue holds (beyond that an event is dead-lettered here, "queue full", as a full queue does), so a
 * thread that falls behind cannot grow the process's memory without bound. If the thread dies, what it had
 * taken is lost (as a crash of the process loses its queues; the log says how much was queued), the node
 * keeps serving, /readyz shows every sink failing, and a new thread starts after a backoff and is handed
 * the batches the dead one had not taken, in order.
 */
export class ThreadedFanout implements SecondaryDelivery {
  private worker: Worker | undefined;
  private pending: string[] = [];
  private scheduled = false;
  /** Posted (or waiting for a thread) and not yet reported taken, oldest first, and how many events they hold. */
  private untaken: string[][] = [];
  private untakenEvents = 0;
  /** The running thread's TAKEN_COUNTER, and how many of its batches were dropped from `untaken` so far. */
  private taken: BigInt64Array<ArrayBufferLike> = new BigInt64Array(1);
  private forgotten = 0;
  private reported: { depths: Array<[string, number]>; health: SinkHealth };
  private readonly answers = new Map<number, { worker: Worker; done: (answer: Answer | undefined) => void }>();
  private nextId = 0;
  private stopping = false;
  /** The thread answered `stopped`: it drained and dead-lettered what it held. */
  private drained = false;
  private down: string | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private launching: Promise<void> | undefined;
  private stopped: Promise<void> | undefined;
  private restartDelay = RESTART_MIN_MS;
  private startedAt = 0;
  private exited: Promise<void> = Promise.resolve();
  private readonly deadLetters: MainThreadDeadLetters;
  private readonly capacity: number;

  private constructor(
    private readonly entry: URL,
    private readonly data: Record<string, unknown>,
    private readonly sinks: ThreadSink[],
    private readonly logger: Logger,
    private readonly observer: FanoutObserver,
  ) {
    this.capacity = Math.max(...sinks.map((s) => s.queueCapacity));
    this.reported = {
      depths: sinks.map((s) => [s.name, 0]),
      health: Object.fromEntries(sinks.map((s) => [`sink:${s.name}`, { ok: true }])),
    };
    this.deadLetters = new MainThreadDeadLetters(sinks, logger, observer);
  }

  /**
   * Starts the thread on `entry` (which calls serveFanoutThread) and waits until its sinks started; throws the thread's
   * reason otherwise.
   */
  static async start(
    entry: URL,
    data: Record<string, unknown>,
    logger: Logger,
    observer: FanoutObserver = { counted: () => {} },
  ): Promise<ThreadedFanout> {
    const { worker, sinks, taken } = await launch(entry, data);
    const fanout = new ThreadedFanout(entry, data, sinks, logger, observer);
    fanout.attach(worker, taken);
    return fanout;
  }

  get size(): number {
    return this.sinks.length;
  }

  offer(event: AuditEvent): void {
    if (this.stopping) {
      this.deadLetters.add(JSON.stringify(event), 'offered after shutdown began');
      return;
    }
    // eventJson's text, without its cache: no sink on this thread reads it again, and the cache's WeakMap costs the
    // loop more than it saves.
    const text = JSON.stringify(event);
    // the shared counter is read only near the bound
    if (this.untakenEvents + this.pending.length >= this.capacity) this.forgetTaken();
    if (this.untakenEvents + this.pending.length >= this.capacity) {
      this.deadLetters.add(text, 'queue full: the audit fan-out thread is behind');
      return;
    }
    this.pending.push(text);
    if (this.pending.length >= POST_BATCH) this.post();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.post());
    }
  }

  async health(): Promise<SinkHealth> {
    if (this.down) {
      const detail = `the audit fan-out thread is restarting (${this.down}); events wait for it, up to the queue's capacity`;
      return { ...this.failingAll(detail), [THREAD_CHECK]: { ok: false, detail } };
    }
    const answer = await this.ask({ t: 'probe', id: 0 }, PROBE_MS);
    if (answer?.t === 'probed') return { [THREAD_CHECK]: { ok: true }, ...answer.checks };
    return {
      ...this.reported.health,
      [THREAD_CHECK]: { ok: false, detail: `the audit fan-out thread did not answer within ${PROBE_MS} ms` },
    };
  }

  depths(): Array<[string, number]> {
    return this.reported.depths;
  }

  async replayDeadLetters(sink?: string): Promise<ReplayOutcome[]> {
    if (this.stopping) throw new Error('the audit fan-out thread is stopping; replay with replay-dead-letters');
    if (this.down || !this.worker)
      throw new Error(`the audit fan-out thread is restarting (${this.down}); replay once /readyz is ready`);
    const answer = await this.ask({ t: 'replay', id: 0, sink });
    if (answer?.t !== 'replayed' || answer.error !== undefined)
      throw new Error(answer?.t === 'replayed' ? answer.error : 'the audit fan-out thread ended during the replay');
    return answer.outcomes ?? [];
  }

  /**
   * Hands what is pending to the thread and has it drain (each queue up to 5 s, then its sinks stop).
   * If it does not end in time it is ended, and what it had not taken goes to the dead-letter files.
   */
  async stop(): Promise<void> {
    this.stopped ??= this.stopThread();
    await this.stopped;
    await this.deadLetters.flushed(); // again: events offered after the first stop began
  }

  private async stopThread(): Promise<void> {
    this.post();
    this.stopping = true;
    clearTimeout(this.restartTimer);
    await this.launching; // a thread starting now is attached, and drained below like any other
    const worker = this.worker;
    if (worker) {
      worker.ref();
      worker.postMessage({ t: 'stop' } satisfies ToFanoutThread);
      // The queues' 5 s of grace, then each sink plugin's own stop (10 s at most each).
      const limit = 5_000 + 10_000 * this.sinks.length + 5_000;
      const timer = setTimeout(() => {
        this.logger.error('the audit fan-out thread did not stop in time; ended it', { waitedMs: limit });
        void worker.terminate();
      }, limit);
      await this.exited;
      clearTimeout(timer);
      this.forgetTaken(); // the counter, not the last report: no report need follow the last batch taken
    }
    for (const batch of this.untaken.splice(0))
      for (const text of batch) this.deadLetters.add(text, 'not delivered before shutdown');
    this.untakenEvents = 0;
  }

  private attach(worker: Worker, taken: BigInt64Array<ArrayBufferLike>): void {
    this.worker = worker;
    this.down = undefined;
    this.taken = taken;
    this.forgotten = 0;
    this.startedAt = Date.now();
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    // A dead thread's last messages still arrive after its 'error': only the current thread's count.
    worker.on('message', (m: FromFanoutThread) => this.worker === worker && this.received(m));
    worker.on('error', (err) => this.died(worker, `it threw: ${err.message}`));
    worker.on('exit', (code) => {
      for (const answer of [...this.answers.values()]) if (answer.worker === worker) answer.done(undefined);
      if (!this.stopping) this.died(worker, `it exited with code ${code}`);
      else if (!this.drained && this.worker === worker)
        this.logger.error('the audit fan-out thread ended before it drained; the events in its queues are lost', {
          code,
        });
    });
    worker.unref();
    // Batches a dead predecessor had not taken (or that waited for this thread), in order.
    for (const batch of this.untaken) worker.postMessage({ t: 'events', texts: batch } satisfies ToFanoutThread);
  }

  private post(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const texts = this.pending;
    this.pending = [];
    this.forgetTaken();
    this.untaken.push(texts);
    this.untakenEvents += texts.length;
    if (this.worker && !this.down) this.worker.postMessage({ t: 'events', texts } satisfies ToFanoutThread);
  }

  private received(m: FromFanoutThread): void {
    if (m.t === 'report') {
      for (const [sink, result, n] of m.counts) this.observer.counted(sink, result, n);
      this.reported = { depths: m.depths, health: m.health };
      this.forgetTaken();
    } else if (m.t === 'stopped') {
      this.drained = true;
      void this.worker?.terminate(); // drained and stopped: a handle a sink library left open must not hold the process
    } else if ('id' in m) {
      this.answers.get(m.id)?.done(m);
    }
  }

  /** Drops the batches the running thread has taken from `untaken`: from here on they are its queues' to deliver. */
  private forgetTaken(): void {
    const taken = Number(Atomics.load(this.taken, 0));
    for (const batch of this.untaken.splice(0, taken - this.forgotten)) this.untakenEvents -= batch.length;
    this.forgotten = taken;
  }

  /** Posts a request and resolves with its answer, or undefined when the thread ends or `ms` passes first. */
  private ask(request: Extract<ToFanoutThread, { id: number }>, ms?: number): Promise<Answer | undefined> {
    const worker = this.worker;
    if (!worker) return Promise.resolve(undefined);
    const id = ++this.nextId;
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (answer: Answer | undefined) => {
        clearTimeout(timer);
        this.answers.delete(id);
        resolve(answer);
      };
      this.answers.set(id, { worker, done });
      if (ms !== undefined) timer = setTimeout(() => done(undefined), ms);
      worker.postMessage({ ...request, id });
    });
  }

  private died(worker: Worker, reason: string): void {
    if (this.worker !== worker) return; // 'error' and 'exit' both come
    this.forgetTaken(); // exact: the counter moved before the thread sent anything of a batch
    this.worker = undefined;
    this.down = reason;
    const queued = this.reported.depths.reduce((sum, [, n]) => sum + n, 0);
    this.logger.error(
      'the audit fan-out thread ended; the events in its queues are lost, later ones wait for a new thread',
      { reason, queuedAtLastReport: queued, waiting: this.untakenEvents },
    );
    this.reported = {
      depths: this.sinks.map((s) => [s.name, 0]),
      health: this.failingAll(`the audit fan-out thread is restarting (${reason})`),
    };
    if (this.stopping) return; // stop() dead-letters what it had not taken
    if (Date.now() - this.startedAt > RESTART_MAX_MS) this.restartDelay = RESTART_MIN_MS;
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    const delay = this.restartDelay;
    this.restartDelay = Math.min(this.restartDelay * 2, RESTART_MAX_MS);
    this.restartTimer = setTimeout(() => {
      this.launching = this.restart().finally(() => (this.launching = undefined));
    }, delay);
    this.restartTimer.unref();
  }

  private async restart(): Promise<void> {
    try {
      const { worker, taken } = await launch(this.entry, this.data);
      this.attach(worker, taken);
      this.logger.info('audit fan-out thread restarted', { handedOver: this.untakenEvents });
    } catch (err) {
      this.down = (err as Error).message;
      if (this.stopping) return;
      this.logger.error('the audit fan-out thread did not start again; trying later', {
        error: this.down,
        waiting: this.untakenEvents,
      });
      this.scheduleRestart();
    }
  }

  private failingAll(detail: string): SinkHealth {
    return Object.fromEntries(this.sinks.map((s) => [`sink:${s.name}`, { ok: false, detail }]));
  }
}

/** Starts a thread and waits for its `ready` (its sinks started), or its reason, within START_MS. */
async function launch(
  entry: URL,
  data: Record<string, unknown>,
): Promise<{ worker: Worker; sinks: ThreadSink[]; taken: BigInt64Array<ArrayBufferLike> }> {
  const taken = new BigInt64Array(new SharedArrayBuffer(8));
  const worker = startModuleWorker(entry, { ...data, [TAKEN_COUNTER]: taken });
  // biome-ignore lint/suspicious/noExplicitAny: Worker.on's own listener type.
  const listeners: Array<[string, (...args: any[]) => void]> = [];
  let timer: NodeJS.Timeout | undefined;
  const first = await new Promise<FromFanoutThread>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`it did not start its sinks within ${START_MS} ms`)), START_MS);
    listeners.push(
      ['message', resolve],
      ['error', reject],
      ['exit', (code: number) => reject(new Error(`it exited with code ${code} before its sinks started`))],
    );
    for (const [event, listener] of listeners) worker.on(event, listener);
  })
    .catch(async (err: Error) => {
      worker.on('error', () => {}); // what it throws while ending is part of the failure already reported
      await worker.terminate();
      throw new Error(`audit fan-out thread: ${err.message}`);
    })
    .finally(() => {
      clearTimeout(timer);
      // Only these: the worker's own listeners keep its message port referenced while 'message' has one.
      for (const [event, listener] of listeners) worker.off(event, listener);
    });
  if (first.t !== 'ready') {
    worker.on('error', () => {});
    await worker.terminate();
    throw new Error(
      `audit fan-out thread: ${first.t === 'failed' ? first.error : `unexpected first message ${first.t}`}`,
    );
  }
  return { worker, sinks: first.sinks, taken };
}
