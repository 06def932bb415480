import { isSvcError } from '../errors.ts';

/**
 * Group commit for audit sinks: records that arrive while the previous batch is being written wait and
 * go together in the next one (one write, one INSERT, one commit). A request still waits for its own
 * record to be durable; many requests share the cost of getting there. Batches are written one after
 * another, so records reach the sink in the order they were written.
 *
 * A batch that fails is written again one item at a time, so each waiter learns the fate of its own
 * item: one item the store refuses can never fail another request's write. A store that cannot be
 * reached at all (ServiceUnavailable) fails the whole batch at once instead.
 *
 * `minIntervalMs` spaces the starts of two writes at least that far apart. Where each write costs the
 * same whatever its size (an fsync), requests that arrive one by one would otherwise each pay a whole
 * write: under traffic that arrives on its own schedule the batches stay small, every request costs more
 * CPU than in a burst, and the server falls behind a rate it sustains in bursts. With an interval, what
 * arrives within it shares one write; a record waits at most the interval longer, and only while writes
 * follow each other that closely (an idle sink writes at once).
 *
 * `fullBatch` ends that wait early: once that many records wait, their write has shared its cost as far as
 * it needs to, and holding them longer only keeps their requests (and, where the clients wait for answers
 * before they send again, everyone's next request) waiting on a clock. Without it the interval alone caps a
 * server whose clients keep N requests open at N per interval, however little CPU it uses.
 */
export class GroupCommit<T> {
  private pending: T[] = [];
  private waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;
  private writing = false;
  /** When (performance.now()) the last write started. */
  private lastStart = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly flush: (batch: T[]) => Promise<void> | void,
    private readonly maxBatch = 1000,
    private readonly minIntervalMs = 0,
    private readonly fullBatch = Number.POSITIVE_INFINITY,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push(item);
      this.waiters.push({ resolve, reject });
      if (this.writing) return;
      if (!this.scheduled) this.schedule();
      else if (this.timer && this.pending.length >= this.fullBatch) {
        clearTimeout(this.timer);
        this.timer = undefined;
        this.scheduled = false;
        void this.write();
      }
    });
  }

  /** The next write: after the rest of this event-loop turn has added its records, and no sooner than the interval. */
  private schedule(): void {
    this.scheduled = true;
    const run = () => {
      // A timer counts from the event loop's cached time, which can be behind: it may fire early.
      this.timer = undefined;
      const wait = this.lastStart + this.minIntervalMs - performance.now();
      if (wait > 0 && this.pending.length < this.fullBatch) {
        this.timer = setTimeout(run, wait);
        return;
      }
      this.scheduled = false;
      void this.write();
    };
    setImmediate(run);
  }

  private async write(): Promise<void> {
    if (this.writing || this.pending.length === 0) return;
    this.writing = true;
    this.lastStart = performance.now();
    const batch = this.pending.splice(0, this.maxBatch);
    const waiters = this.waiters.splice(0, batch.length);
    try {
      await this.flush(batch);
      for (const w of waiters) w.resolve();
    } catch (err) {
      if (batch.length === 1 || (isSvcError(err) && err.code === 'ServiceUnavailable'))
        for (const w of waiters) w.reject(err);
      else await this.oneByOne(batch, waiters);
    } finally {
      this.writing = false;
    }
    // Whatever arrived during the write has already waited: write it now, or once the interval is over.
    if (this.pending.length > 0 && !this.scheduled) {
      if (this.minIntervalMs > 0) this.schedule();
      else void this.write();
    }
  }

  private async oneByOne(
    batch: T[],
    waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }>,
  ): Promise<void> {
    for (let i = 0; i < batch.length; i++) {
      try {
        await this.flush([batch[i]!]);
        waiters[i]!.resolve();
      } catch (err) {
        waiters[i]!.reject(err);
      }
    }
  }
}
