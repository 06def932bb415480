import type { Worker } from 'node:worker_threads';

interface Waiting<T> {
  resolve(value: T): void;
  reject(err: Error): void;
}

/**
 * Calls that wait for a worker thread's reply, matched by id. The worker is referenced while it owes an
 * answer, so a process waiting for one does not exit; idle, it never keeps the process alive.
 */
export class PendingReplies<T = unknown> {
  private nextId = 0;
  private readonly waiting = new Map<number, Waiting<T>>();

  /** Posts `message` with a fresh `id` to `worker`; the call ends when `settle` is given that id. */
  send(worker: Worker, message: Record<string, unknown>): Promise<T> {
    const id = ++this.nextId;
    worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ ...message, id });
    });
  }

  /** Ends the call `id` (an unknown id is ignored); the last one lets the process exit without `worker`. */
  settle(worker: Worker | undefined, id: number, outcome: { value: T } | { error: Error }): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    this.waiting.delete(id);
    if (this.waiting.size === 0) worker?.unref();
    if ('error' in outcome) waiting.reject(outcome.error);
    else waiting.resolve(outcome.value);
  }

  /** Fails every call still waiting (their worker ended) with `error()`; answers how many there were. */
  failAll(error: () => Error): number {
    const lost = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of lost) w.reject(error());
    return lost.length;
  }
}
