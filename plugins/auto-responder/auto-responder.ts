import { randomUUID } from 'node:crypto';
import { SYSTEM_PRINCIPAL, type AuditRecord } from '../../kernel/model/index.ts';
import type { AuditPipelinePort } from '../../kernel/ports/audit-pipeline.ts';
import type { Clock } from '../../kernel/ports/clock.ts';
import type { Detector, Finding } from '../../kernel/ports/detector.ts';
import type { Logger } from '../../kernel/ports/logger.ts';
import type { OperationRunner } from '../../kernel/ports/operation-runner.ts';
import { matchRule, type Action, type Rule } from './rules.ts';

/**
 * Runs every detector on every audit record and acts on findings by the first matching rule (SPEC 6
 * items 6-11): Alert (a row only), Revoke and Deactivate (revoke the key in details.resource), Freeze
 * (intent recorded). One action per (actor, action) per cooldown. Revoke runs through the operation
 * pipeline as svc-system, like any revoke; Alert and Freeze change nothing and are written as annotation
 * rows. Records by svc-system are not fed to the detectors, so it never reacts to itself. Failures
 * become rows, never exceptions.
 */
export class AutoResponder {
  private readonly lastAction = new Map<string, number>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly detectors: Detector[],
    private readonly rules: Rule[],
    private readonly operations: OperationRunner,
    private readonly audit: AuditPipelinePort,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly cooldownMs: number,
  ) {}

  start(): Promise<void> {
    this.audit.onRecord((record) => this.observe(record));
    return Promise.resolve();
  }

  /** Lets actions already under way finish (shutdown's background-work step). */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  observe(record: AuditRecord): void {
    if (record.principal.subject === SYSTEM_PRINCIPAL.subject) return;
    for (const detector of this.detectors) {
      let findings: Finding[];
      try {
        findings = detector.observe(record);
      } catch (err) {
        this.logger.error('detector failed', { detector: detector.name, error: (err as Error).message });
        continue;
      }
      for (const finding of findings) this.respond(detector.name, finding);
    }
  }

  private respond(detector: string, finding: Finding): void {
    const rule = matchRule(this.rules, detector, finding.severity, finding.actor.kind);
    if (!rule) return;
    const cooldownKey = `${finding.actor.kind}:${finding.actor.subject}|${rule.action}`;
    const now = this.clock.now().getTime();
    if (now - (this.lastAction.get(cooldownKey) ?? -Infinity) < this.cooldownMs) return;
    this.lastAction.set(cooldownKey, now);
    const work = this.act(detector, finding, rule.action).finally(() => this.pending.delete(work));
    this.pending.add(work);
  }

  private async act(detector: string, finding: Finding, action: Action): Promise<void> {
    const recId = randomUUID();
    const keyId = (finding.details.resource ?? '').replace(/^key:/, '');
    const alert = `AnomalyAlert(detector=${detector}, severity=${finding.severity}, rec=${recId}, action=${action})`;
    const context = {
      'auto.response.rule': `${detector}:${finding.severity}:${action}`,
      'auto.response.actor': finding.actor.subject,
      'auto.response.recId': recId,
      'auto.response.detectorMsg': finding.message,
    };
    const correlationId = `auto-response-${recId}`;
    if (action === 'Revoke' || action === 'Deactivate') {
      const reason = `auto-response to ${detector} (${finding.severity}) by ${finding.actor.subject}`;
      await this.operations
        .run('RevokeKey', { id: keyId, reason }, {
          principal: SYSTEM_PRINCIPAL,
          requestId: correlationId,
          decorate: { context, resource: () => `key:${keyId}`, outcome: (o, message) => (o === 'Success' ? `${alert} Success key revoked` : `${alert} Failed ${o}: ${message ?? ''}`) },
        })
        .catch(() => {}); // the failure is on the row the pipeline wrote
      return;
    }
    const record: AuditRecord = {
      id: randomUUID(),
      occurredAt: this.clock.now().toISOString(),
      principal: { subject: SYSTEM_PRINCIPAL.subject, kind: SYSTEM_PRINCIPAL.kind },
      operation: action,
      resource: `key:${keyId}`,
      outcome: `${alert} Success${action === 'Freeze' ? ' intent recorded; no automatic freeze' : ''}`,
      context,
      correlationId,
    };
    try {
      await this.audit.record(record);
    } catch (err) {
      this.logger.error('auto-response audit write failed', { recId, error: (err as Error).message });
    }
  }
}
