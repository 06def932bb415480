import {
  type AuditRecord,
  type Clock,
  DESTRUCTIVE_OPERATIONS,
  type Detector,
  type PrincipalKind,
  type RiskAssessor,
  type RiskDecision,
  type RiskFactor,
  type RiskInput,
} from '../../../kernel/index.ts';

export interface RiskSettings {
  /** Weight of each factor: the five detector baselines by detector name, and the four contextual ones. */
  weights: Record<string, number>;
  deny: number;
  stepUp: number;
  destructiveDelta: number;
  /** Principal kinds whose requests the decision may refuse; the others are scored and stamped only. */
  gateKinds: PrincipalKind[];
}

/**
 * The risk score: detector signals (scope, rate spike, operation, hour, address) and four
 * contextual factors (agent principal, credential past 80% of its lifetime, broad scope of 5+ operations,
 * destructive operation), each times its weight, summed and capped at 1. Deny at `deny`, StepUp at
 * `stepUp`, both `destructiveDelta` lower for destructive operations.
 */
export class RiskScorer implements RiskAssessor {
  constructor(
    private readonly detectors: Detector[],
    private readonly settings: RiskSettings,
    private readonly clock: Clock,
  ) {}

  assess(input: RiskInput): RiskDecision {
    const now = this.clock.now();
    const { principal, operation } = input;
    const factors: RiskFactor[] = [];
    const request: AuditRecord = {
      id: '',
      occurredAt: now.toISOString(),
      principal: { subject: principal.subject, kind: principal.kind },
      operation,
      resource: input.resource,
      outcome: '',
      context: { 'source.ip': input.sourceIp },
      correlationId: '',
    };
    for (const d of this.detectors) if (d.riskSignal) this.add(factors, d.name, d.riskSignal(request));
    if (principal.kind === 'Agent') {
      this.add(factors, 'AgentPrincipal', 1);
      if (principal.allowedOperations.length >= 5) this.add(factors, 'BroadScope', 1);
    }
    const credential = principal.credential;
    if (
      credential?.issuedAt !== undefined &&
      credential.expiresAt !== undefined &&
      credential.expiresAt > credential.issuedAt &&
      now.getTime() / 1000 - credential.issuedAt > 0.8 * (credential.expiresAt - credential.issuedAt)
    )
      this.add(factors, 'CredentialAge', 1);
    const destructive = DESTRUCTIVE_OPERATIONS.has(operation);
    if (destructive) this.add(factors, 'DestructiveOp', 1);

    let sum = 0;
    for (const f of factors) sum += f.weight;
    const score = Math.min(1, Math.round(sum * 100) / 100);
    const delta = destructive ? this.settings.destructiveDelta : 0;
    const deny = this.settings.deny - delta;
    const stepUp = this.settings.stepUp - delta;
    if (!this.settings.gateKinds.includes(principal.kind) || score < stepUp)
      return { decision: 'Allow', score, factors };
    const why = `score ${score.toFixed(2)} from ${factors.map((f) => `${f.name} ${f.weight.toFixed(2)}`).join(', ')}`;
    if (score >= deny)
      return {
        decision: 'Deny',
        score,
        factors,
        reason: `${why}; deny threshold ${deny.toFixed(2)}${destructive ? ' for a destructive operation' : ''}`,
      };
    return {
      decision: 'StepUp',
      score,
      factors,
      reason: `${why}; step-up threshold ${stepUp.toFixed(2)}${destructive ? ' for a destructive operation' : ''}`,
    };
  }

  /** A factor counts when its weighted value is above zero (a zero weight switches it off). */
  private add(factors: RiskFactor[], name: string, fraction: number): void {
    const weight = (this.settings.weights[name] ?? 0) * fraction;
    if (weight > 0) factors.push({ name, weight });
  }
}
