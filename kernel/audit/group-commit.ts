/**
 * Group commit for audit sinks: records written in the same event-loop turn are handed to `flush` as
 * one batch (one write, one INSERT), and each writer's promise settles with its batch. A request still
 * waits for its own record to be durable; many requests share the cost of getting there.
 */
export class GroupCommit<T> {
  private pending: T[] = [];
  private waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly flush: (batch: T[]) => Promise<void> | void,
    private readonly maxBatch = 1000,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.drain());
      this.pending.push(item);
      this.waiters.push({ resolve, reject });
      if (this.pending.length >= this.maxBatch) this.drain();
    });
  }

  private drain(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    // Batches are written one after another, so records reach the sink in the order they were written.
    this.flushing = this.flushing.then(async () => {
      try {
        await this.flush(batch);
        for (const w of waiters) w.resolve();
      } catch (err) {
        for (const w of waiters) w.reject(err);
      }
    });
  }
}
