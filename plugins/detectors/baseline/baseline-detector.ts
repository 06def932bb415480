import {
  type ActorStateBudget,
  ActorTable,
  type AuditRecord,
  type Detector,
  type Finding,
  type PrincipalKind,
  type Severity,
} from '../../../kernel/index.ts';

const MAX_ACTORS = 10_000;
const MAX_VALUES_PER_ACTOR = 1_000;
/** Estimated bytes of a Set slot besides the string itself. */
const VALUE_OVERHEAD = 40;

export interface BaselineDimension {
  name: string;
  /** What this record shows of the dimension (key, operation, hour, address); undefined to ignore it. */
  valueOf(record: AuditRecord): string | undefined;
  severityFor(kind: PrincipalKind): Severity;
  describe(value: string): string;
  /**
   * A burst of new values that is High whatever the kind: `count` values never seen before within
   * `windowMs` (an agent probing key after key). Undefined: every new value is reported alike.
   */
  burst?: { count: number; windowMs: number };
}

/** What a baseline keeps per actor: the values seen, and when the last few new ones appeared. */
interface Seen {
  values: Set<string>;
  novelAt: number[];
}

/**
 * A per-actor baseline: remembers the values an actor has shown in one dimension and reports a
 * value it has never shown. Cold start: nothing is reported until the actor has at least one prior
 * observation. Memory: at most MAX_ACTORS actors of each principal kind with at most MAX_VALUES_PER_ACTOR
 * values each (then it stops learning and reporting for them), within the detectors' byte budget (least
 * recently seen actors dropped first).
 */
export class BaselineDetector implements Detector {
  readonly name: string;
  private readonly seen: ActorTable<Seen>;

  constructor(
    private readonly dimension: BaselineDimension,
    budget: ActorStateBudget,
  ) {
    this.name = dimension.name;
    this.seen = new ActorTable<Seen>(budget, MAX_ACTORS, () => 64 + 8 * (dimension.burst?.count ?? 0));
  }

  /** 1 when the actor has a baseline in this dimension and the request's value is not in it. */
  riskSignal(request: AuditRecord): number {
    // peek: a risk question is not a sighting, so it must not refresh the actor's place in the LRU.
    const values = this.seen.peek(request.principal)?.values;
    if (values === undefined || values.size === 0) return 0;
    const value = this.dimension.valueOf(request);
    return value !== undefined && !values.has(value) ? 1 : 0;
  }

  observe(r: AuditRecord): Finding[] {
    const value = this.dimension.valueOf(r);
    if (value === undefined) return [];
    let seen = this.seen.get(r.principal);
    if (seen === undefined) this.seen.set(r.principal, (seen = { values: new Set<string>(), novelAt: [] }));
    const { values } = seen;
    if (values.has(value) || values.size >= MAX_VALUES_PER_ACTOR) return [];
    const coldStart = values.size === 0;
    values.add(value);
    this.seen.grew(r.principal, VALUE_OVERHEAD + 2 * value.length);
    if (coldStart) return [];
    return [
      {
        severity: this.inBurst(seen, r.occurredAt) ? 'High' : this.dimension.severityFor(r.principal.kind),
        actor: r.principal,
        details: { resource: r.resource, value },
        message: `${this.dimension.describe(value)} not seen before for this actor (${values.size - 1} known)`,
      },
    ];
  }

  /** Records a new value's time; true when it completes a burst of `count` new values within the window. */
  private inBurst(seen: Seen, occurredAt: string): boolean {
    const burst = this.dimension.burst;
    if (!burst) return false;
    const at = Date.parse(occurredAt);
    seen.novelAt.push(at);
    if (seen.novelAt.length > burst.count) seen.novelAt.shift();
    return seen.novelAt.length === burst.count && at - seen.novelAt[0]! <= burst.windowMs;
  }
}
