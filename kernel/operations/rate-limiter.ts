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
  constructor(public tokens: number, public at: number) {}
}

/**
 * Per-principal token buckets on this node (DECISIONS: rateLimit.*): each caller may make `burst`
 * calls at once and `requestsPerSecond` on average; beyond that a call is 429 TooManyRequests with the
 * whole seconds until one more would pass. One map lookup and a little arithmetic per call; buckets of
 * callers not seen for a while are dropped first when the table is full (a dropped bucket starts full).
 */
export class RateLimiter {
  private readonly kinds = new Map<PrincipalKind, LRUCache<string, Bucket>>();
  private readonly perMs: number;

  constructor(private readonly limit: RateLimit) {
    this.perMs = limit.requestsPerSecond / 1000;
  }

  /** Takes one call from the principal's bucket at `nowMs` (a monotonic clock); throws 429 when it is empty. */
  take(principal: Principal, nowMs: number): void {
    let table = this.kinds.get(principal.kind);
    if (!table) {
      table = new LRUCache<string, Bucket>({ maxSize: Math.floor(MAX_BUCKET_BYTES / 3), sizeCalculation: (_b, subject) => 64 + 2 * subject.length });
      this.kinds.set(principal.kind, table);
    }
    const bucket = table.get(principal.subject);
    if (!bucket) {
      table.set(principal.subject, new Bucket(this.limit.burst - 1, nowMs));
      return;
    }
    bucket.tokens = Math.min(this.limit.burst, bucket.tokens + (nowMs - bucket.at) * this.perMs);
    bucket.at = nowMs;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / this.limit.requestsPerSecond));
    throw new SvcError('TooManyRequests', `${principal.subject} is over its rate limit of ${this.limit.requestsPerSecond} requests per second (burst ${this.limit.burst}); retry after ${retryAfterSeconds} s`, { retryAfterSeconds });
  }
}
