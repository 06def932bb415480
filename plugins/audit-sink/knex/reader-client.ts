import type { Worker } from 'node:worker_threads';
import {
  closeWorker,
  type ErrorCode,
  type Logger,
  PendingReplies,
  siblingModule,
  startModuleWorker,
  SvcError,
} from '../../../kernel/index.ts';
import type { KnexRecipe } from '../../sql-support/recipe.ts';
import type { ReaderAnswer, ReaderArgs, ReaderKind, ReaderMessage, ReaderReply } from './reader-handlers.ts';

// From source the worker is reader-worker.ts; in the built server (dist/server) this file and it are .js.
const ENTRY = siblingModule(import.meta.url, 'reader-worker');

/**
 * The knex audit sink's reader: a worker thread with its own read connection (reader-worker.ts) that
 * answers long reads, so they never run on the request path's event loop. Started at the first request;
 * a worker that dies fails the requests it held with 503 and is started again by the next request.
 */
export class AuditReader {
  private worker: Worker | undefined;
  private readonly replies = new PendingReplies();
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
    const message: Omit<ReaderMessage, 'id'> = { kind, args };
    return this.replies.send(this.running(), message) as Promise<ReaderAnswer<K>>;
  }

  /** Closes the worker's connection and ends it; one that does not end within 5 s is terminated. */
  async stop(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    await closeWorker(worker, { id: 0, kind: 'close' } satisfies ReaderMessage);
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const worker = startModuleWorker(ENTRY, { recipe: this.recipe, niceness: this.niceness });
    worker.on('message', (reply: ReaderReply) => this.settle(reply));
    worker.on('error', (err) => this.logger.warn('audit reader worker failed', { error: err.message }));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      const lost = this.replies.failAll(
        () =>
          new SvcError('ServiceUnavailable', 'the audit reader ended before it answered; retry', {
            retryAfterSeconds: 1,
          }),
      );
      if (lost > 0 || (code !== 0 && !this.stopped))
        this.logger.warn('audit reader worker ended', { code, requests: lost });
    });
    this.worker = worker;
    return worker;
  }

  private settle(reply: ReaderReply): void {
    if ('value' in reply) {
      this.replies.settle(this.worker, reply.id, { value: reply.value });
      return;
    }
    const { code, message, retryAfterSeconds } = reply.error;
    const error = code ? new SvcError(code as ErrorCode, message, { retryAfterSeconds }) : new Error(message);
    this.replies.settle(this.worker, reply.id, { error });
  }
}
