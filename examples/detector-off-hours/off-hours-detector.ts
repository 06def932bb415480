import {
  type AuditRecord,
  DESTRUCTIVE_OPERATIONS,
  type Detector,
  type Finding,
  isOperation,
} from '../../kernel/index.ts';

/**
 * An example third-party detector: a destructive operation (rotate, revoke, compromise, destroy) outside
 * business hours (UTC). High for agents, Medium for everyone else. Stateless, so nothing to bound.
 */
export class OffHoursDestructiveDetector implements Detector {
  readonly name = 'OffHoursDestructive';

  constructor(
    private readonly startHour: number,
    private readonly endHour: number,
  ) {}

  observe(r: AuditRecord): Finding[] {
    if (!isOperation(r.operation) || !DESTRUCTIVE_OPERATIONS.has(r.operation)) return [];
    const hour = new Date(r.occurredAt).getUTCHours();
    if (Number.isNaN(hour) || (hour >= this.startHour && hour < this.endHour)) return [];
    return [
      {
        severity: r.principal.kind === 'Agent' ? 'High' : 'Medium',
        actor: r.principal,
        details: { resource: r.resource, hour: String(hour) },
        message: `${r.operation} at ${hour}:00 UTC, outside business hours ${this.startHour}:00-${this.endHour}:00`,
      },
    ];
  }
}
