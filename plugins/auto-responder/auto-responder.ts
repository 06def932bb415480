import { randomUUID } from 'node:crypto';
import { isSvcError } from '../../kernel/errors.ts';
import { SYSTEM_PRINCIPAL, type AuditRecord } from '../../kernel/model/index.ts';
import type { AuditPipelinePort } from '../../kernel/ports/audit-pipeline.ts';
import type { Clock } from '../../kernel/ports/clock.ts';
import type { Detector, Finding } from '../../kernel/ports/detector.ts';
import type { KeyAdmin } from '../../kernel/ports/key-admin.ts';
import type { Logger } from '../../kernel/ports/logger.ts';
import { matchRule, type Action, type Rule } from './rules.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Runs every detector on every audit record and acts on findings by the first matching rule (SPEC 6
 * items 6-11): Alert (a row only), Revoke and Deactivate (revoke the key in details.resource), Freeze
 * (intent recorded). One action per (actor, action) per cooldown. Its rows are written as svc-system, and
 * records by svc-system are not fed to the detectors, so it never reacts to itself. Failures become rows.
 */
export class AutoResponder {
  private readonly lastAction = new Map<string, number>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly detectors: Detector[],
    private readonly rules: Rule[],
    private readonly keys: KeyAdmin,
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
    let result = 'Success';
    let detail = '';
    if (action === 'Revoke' || action === 'Deactivate') {
      if (!UUID.test(keyId)) {
        result = 'Failed';
        detail = `invalid key id "${keyId}"`;
      } else {
        try {
          await this.keys.revoke(keyId, SYSTEM_PRINCIPAL.subject, `auto-response to ${detector} (${finding.severity}) by ${finding.actor.subject}`);
          detail = 'key revoked';
        } catch (err) {
          result = 'Failed';
          detail = isSvcError(err) ? `${err.code}: ${err.message}` : (err as Error).message;
        }
      }
    } else if (action === 'Freeze') {
      detail = 'intent recorded; no automatic freeze';
    }
    try {
      await this.audit.record({
        occurredAt: this.clock.now().toISOString(),
        principal: { subject: SYSTEM_PRINCIPAL.subject, kind: SYSTEM_PRINCIPAL.kind },
        operation: action === 'Deactivate' ? 'Revoke' : action,
        resource: `key:${keyId}`,
        outcome: `AnomalyAlert(detector=${detector}, severity=${finding.severity}, rec=${recId}, action=${action}) ${result}${detail ? ` ${detail}` : ''}`,
        context: {
          'auto.response.rule': `${detector}:${finding.severity}:${action}`,
          'auto.response.actor': finding.actor.subject,
          'auto.response.recId': recId,
          'auto.response.detectorMsg': finding.message,
        },
        correlationId: `auto-response-${recId}`,
      });
    } catch (err) {
      this.logger.error('auto-response audit write failed', { recId, error: (err as Error).message });
    }
  }
}
