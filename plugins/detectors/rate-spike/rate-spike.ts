import {
  type ActorStateBudget,
  ActorTable,
  type AuditRecord,
  type Detector,
  type Finding,
} from '../../../kernel/index.ts';

const MAX_ACTORS = 10_000;

/**
 * Index of the first time after `since` in ascending `times` (binary search: a sustained burst keeps 3x threshold of
 * them).
 */
function firstAfter(times: number[], since: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! > since) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * RateSpike: counts an actor's requests in a sliding window. Medium when the count reaches the
 * threshold, High at three times it; each fires once per crossing. Memory: at most 3 x threshold
 * timestamps (plus one) per actor, MAX_ACTORS actors of each principal kind, within the detectors' byte
 * budget (least recently seen first out).
 */
export class RateSpikeDetector implements Detector {
  readonly name = 'RateSpike';
  private readonly seen: ActorTable<number[]>;

  constructor(
    private readonly threshold: number,
    private readonly windowSeconds: number,
    budget: ActorStateBudget,
  ) {
    // Charged at its largest (3 x threshold + 1 numbers) up front, so the array never has to report growth.
    const bytes = 32 + 8 * (3 * threshold + 1);
    this.seen = new ActorTable<number[]>(budget, MAX_ACTORS, () => bytes);
  }

  /**
   * 0 up to the threshold, rising linearly to 1 at four times it: a runaway loop weighs more and more,
   * while the burst that makes a High finding (3x) alone still leaves an agent below the step-up mark.
   */
  riskSignal(request: AuditRecord): number {
    const times = this.seen.peek(request.principal);
    if (!times || times.length < this.threshold) return 0;
    const since = Date.parse(request.occurredAt) - this.windowSeconds * 1000;
    const count = 1 + times.length - firstAfter(times, since);
    return Math.min(1, Math.max(0, (count - this.threshold) / (3 * this.threshold)));
  }

  observe(r: AuditRecord): Finding[] {
    const at = Date.parse(r.occurredAt);
    let times = this.seen.get(r.principal);
    if (times === undefined) this.seen.set(r.principal, (times = []));
    while (times.length && times[0]! <= at - this.windowSeconds * 1000) times.shift();
    times.push(at);
    // Keep one more than the High mark, so a sustained burst stays above it instead of re-crossing it.
    if (times.length > this.threshold * 3 + 1) times.shift();

    const count = times.length;
    const high = this.threshold * 3;
    if (count !== this.threshold && count !== high) return [];
    return [
      {
        severity: count >= high ? 'High' : 'Medium',
        actor: r.principal,
        details: { resource: r.resource, count: String(count), windowSeconds: String(this.windowSeconds) },
        message: `${count} requests in ${this.windowSeconds} s (threshold ${this.threshold})`,
      },
    ];
  }
}
