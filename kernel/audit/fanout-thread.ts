import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { Logger } from '../ports/logger.ts';
import { startModuleWorker } from '../threads/module-worker.ts';
import type { AuditEvent } from './canonical-event.ts';
import type { ReplayOutcome } from './dead-letter-replay.ts';
import type { FanoutObserver } from './fanout.ts';
import type { FromFanoutThread, ToFanoutThread } from './fanout-thread-messages.ts';
import type { SecondaryDelivery, SinkHealth } from './secondary-delivery.ts';

/** Texts posted to the thread at once at most; fewer go at the end of the event-loop turn. */
const POST_BATCH = 512;
/** How long /readyz waits for the thread's probe of its sinks. */
const PROBE_MS = 2_000;
/** How long stop() waits for the thread to drain (each queue has 5 s of grace) before ending it. */
const STOP_MS = 20_000;

type Answer = Extract<FromFanoutThread, { id: number }>;

/**
 * The secondary sinks on a worker thread of their own (audit.fanoutThread): the request loop only turns
 * each event into its JSON text and posts the texts in batches, so the sinks' CPU (HTTP, Kafka and NATS
 * clients, HMAC) runs on another core when the machine has one. The thread (fanout-thread-host.ts) runs
 * the same queues, retries and dead-letter files as on the request loop, and reports counts, depths and
 * health back. If the thread ends unexpectedly, what it held is lost (logged, as a crash of the process
 * would lose its queues), /readyz reports every sink failing, and later events go straight to each sink's
 * dead-letter file, to be replayed once the node restarts.
 */
export class ThreadedFanout implements SecondaryDelivery {
  private pending: string[] = [];
  private scheduled = false;
  private reported: { depths: Array<[string, number]>; health: SinkHealth } = { depths: [], health: {} };
  private readonly answers = new Map<number, (answer: Answer | undefined) => void>();
  private nextId = 0;
  private stopping = false;
  private dead: string | undefined;
  private deadLetters: Promise<void> = Promise.resolve();
  private exited: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    private readonly sinks: Array<{ name: string; deadLetterFile: string }>,
    private readonly logger: Logger,
    private readonly observer: FanoutObserver,
  ) {
    this.reported.health = Object.fromEntries(sinks.map((s) => [`sink:${s.name}`, { ok: true }]));
    this.reported.depths = sinks.map((s) => [s.name, 0]);
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (m: FromFanoutThread) => this.received(m));
    worker.on('error', (err) => this.died(`it threw: ${err.message}`));
    worker.on('exit', (code) => {
      if (!this.stopping) this.died(`it exited with code ${code}`);
      for (const done of [...this.answers.values()]) done(undefined);
    });
    worker.unref();
  }

  /** Starts the thread on `entry` (which calls serveFanoutThread) and waits until its sinks started; throws the thread's reason otherwise. */
  static async start(entry: URL, data: Record<string, unknown>, logger: Logger, observer: FanoutObserver = { counted: () => {} }): Promise<ThreadedFanout> {
    const worker = startModuleWorker(entry, data);
    const listeners: Array<[string, (...args: any[]) => void]> = [];
    const first = await new Promise<FromFanoutThread>((resolve, reject) => {
      listeners.push(['message', resolve], ['error', reject], ['exit', (code: number) => reject(new Error(`the audit fan-out thread exited with code ${code} before its sinks started`))]);
      for (const [event, listener] of listeners) worker.on(event, listener);
    }).finally(() => {
      // Only these: the worker's own listeners keep its message port referenced while 'message' has one.
      for (const [event, listener] of listeners) worker.off(event, listener);
    });
    if (first.t !== 'ready') {
      await worker.terminate();
      throw new Error(`audit fan-out thread: ${first.t === 'failed' ? first.error : `unexpected first message ${first.t}`}`);
    }
    return new ThreadedFanout(worker, first.sinks, logger, observer);
  }

  get size(): number {
    return this.sinks.length;
  }

  offer(event: AuditEvent): void {
    if (this.dead || this.stopping) {
      this.deadLetter([JSON.stringify(event)], this.dead ? `the audit fan-out thread is gone (${this.dead})` : 'offered after shutdown began');
      return;
    }
    // eventJson's text, without its cache: no sink on this thread reads it again, and the cache's WeakMap costs the loop more than it saves.
    this.pending.push(JSON.stringify(event));
    if (this.pending.length >= POST_BATCH) this.post();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.post());
    }
  }

  async health(): Promise<SinkHealth> {
    if (this.dead) return this.failingAll(`the audit fan-out thread is gone (${this.dead}); events go to the dead-letter file until the node restarts`);
    const answer = await this.ask({ t: 'probe', id: 0 }, PROBE_MS);
    if (answer?.t === 'probed') return answer.checks;
    return { ...this.reported.health, 'audit-fanout-thread': { ok: false, detail: `the audit fan-out thread did not answer within ${PROBE_MS} ms` } };
  }

  depths(): Array<[string, number]> {
    return this.reported.depths;
  }

  async replayDeadLetters(sink?: string): Promise<ReplayOutcome[]> {
    if (this.dead) throw new Error(`the audit fan-out thread is gone (${this.dead}); restart the node, then replay`);
    const answer = await this.ask({ t: 'replay', id: 0, sink });
    if (answer?.t !== 'replayed' || answer.error !== undefined) throw new Error(answer?.t === 'replayed' ? answer.error : 'the audit fan-out thread ended during the replay');
    return answer.outcomes ?? [];
  }

  async stop(): Promise<void> {
    if (this.stopping) return this.exited;
    this.post();
    this.stopping = true;
    if (!this.dead) {
      this.worker.ref();
      this.worker.postMessage({ t: 'stop' } satisfies ToFanoutThread);
      const timer = setTimeout(() => {
        this.logger.error('the audit fan-out thread did not stop in time; ended it', { waitedMs: STOP_MS });
        void this.worker.terminate();
      }, STOP_MS);
      await this.exited;
      clearTimeout(timer);
    }
    await this.deadLetters;
  }

  private post(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const texts = this.pending;
    this.pending = [];
    if (this.dead) this.deadLetter(texts, `the audit fan-out thread is gone (${this.dead})`);
    else this.worker.postMessage({ t: 'events', texts } satisfies ToFanoutThread);
  }

  private received(m: FromFanoutThread): void {
    if (m.t === 'report') {
      for (const [sink, result, n] of m.counts) this.observer.counted(sink, result as Parameters<FanoutObserver['counted']>[1], n);
      this.reported = { depths: m.depths, health: m.health };
    } else if (m.t === 'stopped') {
      this.worker.unref();
    } else if ('id' in m) {
      this.answers.get(m.id)?.(m);
    }
  }

  /** Posts a request and resolves with its answer, or undefined when the thread ends or `ms` passes first. */
  private ask(request: Extract<ToFanoutThread, { id: number }>, ms?: number): Promise<Answer | undefined> {
    const id = ++this.nextId;
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (answer: Answer | undefined) => {
        clearTimeout(timer);
        this.answers.delete(id);
        resolve(answer);
      };
      this.answers.set(id, done);
      if (ms !== undefined) timer = setTimeout(() => done(undefined), ms);
      this.worker.postMessage({ ...request, id });
    });
  }

  private died(reason: string): void {
    if (this.dead) return;
    this.dead = reason;
    const held = this.reported.depths.reduce((sum, [, n]) => sum + n, 0);
    this.logger.error('the audit fan-out thread ended; the events it held are lost, later ones go to the dead-letter files', { reason, queuedAtLastReport: held });
    this.post();
  }

  private failingAll(detail: string): SinkHealth {
    return Object.fromEntries(this.sinks.map((s) => [`sink:${s.name}`, { ok: false, detail }]));
  }

  /** The dead-letter line FanoutQueue writes, built from the event's text. */
  private deadLetter(texts: string[], error: string): void {
    const failedAt = new Date().toISOString();
    for (const sink of this.sinks) {
      this.observer.counted(sink.name, 'dead_lettered', texts.length);
      const lines = texts.map((text) => `{"event":${text},"sink":${JSON.stringify(sink.name)},"error":${JSON.stringify(error)},"attempts":0,"failedAt":"${failedAt}"}\n`).join('');
      this.deadLetters = this.deadLetters.then(async () => {
        try {
          await mkdir(path.dirname(sink.deadLetterFile), { recursive: true, mode: 0o700 });
          await appendFile(sink.deadLetterFile, lines, { mode: 0o600 });
        } catch (err) {
          this.logger.error('audit dead-letter write failed: events lost', { sink: sink.name, events: texts.length, error: (err as Error).message });
        }
      });
    }
  }
}
