import { ActorTable } from '../../../kernel/detection/actor-table.ts';
import type { ActorStateBudget } from '../../../kernel/detection/state-budget.ts';
import type { AuditRecord, PrincipalKind } from '../../../kernel/model/index.ts';
import type { Detector, Finding, Severity } from '../../../kernel/ports/detector.ts';

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
}

/**
 * A per-actor baseline (SPEC 6): remembers the values an actor has shown in one dimension and reports a
 * value it has never shown. Cold start: nothing is reported until the actor has at least one prior
 * observation. Memory: at most MAX_ACTORS actors of each principal kind with at most MAX_VALUES_PER_ACTOR
 * values each (then it stops learning and reporting for them), within the detectors' byte budget (least
 * recently seen actors dropped first).
 */
export class BaselineDetector implements Detector {
  readonly name: string;
  private readonly seen: ActorTable<Set<string>>;

  constructor(private readonly dimension: BaselineDimension, budget: ActorStateBudget) {
    this.name = dimension.name;
    this.seen = new ActorTable<Set<string>>(budget, MAX_ACTORS, () => 0);
  }

  /** 1 when the actor has a baseline in this dimension and the request's value is not in it. */
  riskSignal(request: AuditRecord): number {
    // peek: a risk question is not a sighting, so it must not refresh the actor's place in the LRU.
    const values = this.seen.peek(request.principal);
    if (values === undefined || values.size === 0) return 0;
    const value = this.dimension.valueOf(request);
    return value !== undefined && !values.has(value) ? 1 : 0;
  }

  observe(r: AuditRecord): Finding[] {
    const value = this.dimension.valueOf(r);
    if (value === undefined) return [];
    let values = this.seen.get(r.principal);
    if (values === undefined) this.seen.set(r.principal, (values = new Set<string>()));
    if (values.has(value) || values.size >= MAX_VALUES_PER_ACTOR) return [];
    const coldStart = values.size === 0;
    values.add(value);
    this.seen.grew(r.principal, VALUE_OVERHEAD + 2 * value.length);
    if (coldStart) return [];
    return [{
      severity: this.dimension.severityFor(r.principal.kind),
      actor: r.principal,
      details: { resource: r.resource, value },
      message: `${this.dimension.describe(value)} not seen before for this actor (${values.size - 1} known)`,
    }];
  }
}
