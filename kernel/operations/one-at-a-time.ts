import { SvcError } from '../errors.ts';

/**
 * At most one run of a long piece of work per node (an advisor scan, an audit verification): a second
 * caller while one runs is refused with 429 TooManyRequests and a Retry-After of about what the last run
 * took, instead of queueing behind it. Two such reads at once would only share the same reader and
 * database, each taking twice as long, and a loop of callers could keep them running without end.
 */
export class OneAtATime {
  private running = false;
  private lastMs = 1000;

  /** `what` names the work in the refusal: "an advisor scan". */
  constructor(private readonly what: string) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running) {
      const retryAfterSeconds = Math.max(1, Math.ceil(this.lastMs / 1000));
      throw new SvcError(
        'TooManyRequests',
        `${this.what} is already running on this node, and only one runs at a time; retry after ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    }
    this.running = true;
    const began = performance.now();
    try {
      return await work();
    } finally {
      this.running = false;
      this.lastMs = performance.now() - began;
    }
  }
}

/** `fn` such that at most one call of it runs at a time (per wrapper made): for an operation's handler. */
export function oneAtATime<A extends unknown[], T>(
  what: string,
  fn: (...args: A) => Promise<T>,
): (...args: A) => Promise<T> {
  const gate = new OneAtATime(what);
  return (...args) => gate.run(() => fn(...args));
}
