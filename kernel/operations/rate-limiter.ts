import { LRUCache } from 'lru-cache';
import { SvcError } from '../errors.ts';
import type { Principal, PrincipalKind } from '../model/index.ts';

export interface RateLimit {
  requestsPerSecond: number;
  burst: number;
}

/** Buckets kept at most, in bytes of their subjects: a flood of distinct callers cannot grow it further. */
const MAX_BUCKET_BYTES = 16 * 1024 * 1024;

class Bucket {
  constructor(
    public tokens: number,
    public at: number,
  ) {}
}

/**
 * Per-principal token buckets on this node (settings rateLimit.*): each caller may make `burst`
 * calls at once and `requestsPerSecond` on average; beyond that a call is 429 TooManyRequests with the
 * whole seconds until one more would pass. A batch counts each of its items as a call, and a costly
 * operation (import parameters) its declared cost. An agent's call takes one token from its own bucket
 * AND one from its parent's (the parent's Human bucket), so a user's agents share the user's limit
 * instead of multiplying it; when either is empty neither is charged. One or two map lookups and a little
 * arithmetic per call; buckets of callers not seen for a while are dropped first when the table is full
 * (a dropped bucket starts full).
 */
export class RateLimiter {
  private readonly kinds = new Map<PrincipalKind, LRUCache<string, Bucket>>();
  private readonly perMs: number;

  constructor(private readonly limit: RateLimit) {
    this.perMs = limit.requestsPerSecond / 1000;
  }

  /**
   * Takes `units` (a call: 1; a batch: its items; a costly call: its cost) from the principal's bucket
   * (and an agent's parent's) at `nowMs` (a monotonic clock); throws 429 when one holds too few. A
   * bucket never holds more than `burst`, so a call of more units passes once the bucket is full and
   * leaves it in debt: the caller then waits until the debt is paid, and the average stays `requestsPerSecond` units.
   */
  take(principal: Principal, nowMs: number, units = 1): void {
    const own = this.refilled(principal.kind, principal.subject, nowMs);
    // Agents are issued by Humans only, so the parent's calls are in the Human table under its subject.
    const parentSubject = principal.kind === 'Agent' ? principal.parent : undefined;
    const parent = parentSubject === undefined ? undefined : this.refilled('Human', parentSubject, nowMs);
    const needed = Math.min(units, this.limit.burst);
    if (own.tokens >= needed && (parent === undefined || parent.tokens >= needed)) {
      own.tokens -= units;
      if (parent) parent.tokens -= units;
      return;
    }
    const empty = own.tokens < needed ? own : parent!;
    const retryAfterSeconds = Math.max(1, Math.ceil((needed - empty.tokens) / this.limit.requestsPerSecond));
    const who = empty === own ? `${principal.subject} is` : `${principal.subject}'s parent ${parentSubject} is`;
    const counted = units === 1 ? '' : ` (this call counts as ${units} calls)`;
    throw new SvcError(
      'TooManyRequests',
      `${who} over its rate limit of ${this.limit.requestsPerSecond} requests per second (burst ${this.limit.burst})${counted}; retry after ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    );
  }

  /** The caller's bucket brought up to `nowMs` (a new one starts full). */
  private refilled(kind: PrincipalKind, subject: string, nowMs: number): Bucket {
    let table = this.kinds.get(kind);
    if (!table) {
      table = new LRUCache<string, Bucket>({
        maxSize: Math.floor(MAX_BUCKET_BYTES / 3),
        sizeCalculation: (_b, key) => 64 + 2 * key.length,
      });
      this.kinds.set(kind, table);
    }
    let bucket = table.get(subject);
    if (!bucket) {
      bucket = new Bucket(this.limit.burst, nowMs);
      table.set(subject, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(this.limit.burst, bucket.tokens + (nowMs - bucket.at) * this.perMs);
    bucket.at = nowMs;
    return bucket;
  }
}
