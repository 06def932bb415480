import type { Worker } from 'node:worker_threads';
import { type ErrorCode, type Logger, siblingModule, startModuleWorker, SvcError } from '../../../kernel/index.ts';
import type { KnexRecipe } from '../../sql-support/recipe.ts';
import type { ReaderAnswer, ReaderArgs, ReaderKind, ReaderMessage, ReaderReply } from './reader-handlers.ts';

// From source the worker is reader-worker.ts; in the built server (dist/server) this file and it are .js.
const ENTRY = siblingModule(import.meta.url, 'reader-worker');

interface Waiting {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/**
 * The knex audit sink's reader: a worker thread with its own read connection (reader-worker.ts) that
 * answers long reads, so they never run on the request path's event loop. Started at the first request;
 * a worker that dies fails the requests it held with 503 and is started again by the next request.
 */
export class AuditReader {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, Waiting>();
  private stopped = false;

  constructor(
    private readonly recipe: KnexRecipe,
    private readonly logger: Logger,
    /** Above 0, the worker thread lowers its own CPU priority to this nice value (reader-priority.ts). */
    private readonly niceness = 0,
  ) {}

  request<K extends ReaderKind>(kind: K, args: ReaderArgs<K>): Promise<ReaderAnswer<K>> {
    if (this.stopped)
      return Promise.reject(
        new SvcError('ServiceUnavailable', 'the audit sink is stopping; retry on another node', {
          retryAfterSeconds: 5,
        }),
      );
    const worker = this.running();
    const id = ++this.nextId;
    // Referenced while it owes an answer, so a process waiting for one does not exit; idle, it never keeps the process
    // alive.
    worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ id, kind, args } satisfies ReaderMessage);
    });
  }

  /** Closes the worker's connection and ends it; one that does not end within 5 s is terminated. */
  async stop(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ id: 0, kind: 'close' } satisfies ReaderMessage);
    const timer = setTimeout(() => void worker.terminate(), 5_000);
    await exited;
    clearTimeout(timer);
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const worker = startModuleWorker(ENTRY, { recipe: this.recipe, niceness: this.niceness });
    worker.on('message', (reply: ReaderReply) => this.settle(reply));
    worker.on('error', (err) => this.logger.warn('audit reader worker failed', { error: err.message }));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      const lost = [...this.waiting.values()];
      this.waiting.clear();
      if (lost.length > 0 || (code !== 0 && !this.stopped))
        this.logger.warn('audit reader worker ended', { code, requests: lost.length });
      for (const w of lost)
        w.reject(
          new SvcError('ServiceUnavailable', 'the audit reader ended before it answered; retry', {
            retryAfterSeconds: 1,
          }),
        );
    });
    this.worker = worker;
    return worker;
  }

  private settle(reply: ReaderReply): void {
    const waiting = this.waiting.get(reply.id);
    if (!waiting) return;
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.worker?.unref();
    if ('value' in reply) waiting.resolve(reply.value);
    else if (reply.error.code)
      waiting.reject(
        new SvcError(reply.error.code as ErrorCode, reply.error.message, {
          retryAfterSeconds: reply.error.retryAfterSeconds,
        }),
      );
    else waiting.reject(new Error(reply.error.message));
  }
}
