import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import {
  type AuditPipelinePort,
  type AuditRecord,
  type Clock,
  type Detector,
  type Finding,
  type Logger,
  type OperationRunner,
  SYSTEM_PRINCIPAL,
  auditIdentity,
} from '../../kernel/index.ts';
import { usedMaterial, type MaterialUses } from './material-uses.ts';
import { matchRule, type Action, type Rule } from './rules.ts';

/** Cooldown entries kept at most (each lives one cooldown): a flood of distinct actors cannot grow it further. */
const MAX_COOLDOWNS = 50_000;

/**
 * Runs every detector on every audit record and acts on findings by the first matching rule,
 * every action of its line: Alert (a row only), RevokeAgent (the offending agent's token
 * killed), Disable (the key in details.resource paused until a Human enables it), Revoke and
 * Deactivate (revoke that key for good), Freeze (intent recorded). The
 * response hits the offender, not its target: a key is revoked only when the offender used that key's
 * secret material with success (Sign, Encrypt, Decrypt, Wrap, Unwrap, an HMAC Verify, an export) within the finding's
 * window
 * (details.windowSeconds up to the record that made it; without a window, that record itself). Reads
 * (Get, Locate, the public key) and refused or failed calls still feed the detectors, but their findings
 * act on the actor alone, so an agent cannot make the service disable a key it cannot use. One action per (actor,
 * action) per cooldown. Revoke and RevokeAgent run through the operation pipeline as svc-system, like
 * any revoke; Alert and Freeze change nothing and are written as annotation rows. Records by svc-system
 * are not fed to the detectors, so it never reacts to itself. Failures become rows, never exceptions.
 */
/** Told about every finding and every action taken (svc_detector_findings_total, svc_auto_response_actions_total). */
export interface ResponseObserver {
  found(detector: string, severity: string): void;
  acted(action: string, result: 'success' | 'failed'): void;
}

export class AutoResponder {
  private readonly lastAction: LRUCache<string, number>;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly detectors: Detector[],
    private readonly rules: Rule[],
    private readonly operations: OperationRunner,
    private readonly audit: AuditPipelinePort,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly cooldownMs: number,
    private readonly uses: MaterialUses,
    private readonly observer: ResponseObserver = { found: () => {}, acted: () => {} },
  ) {
    this.lastAction = new LRUCache({ max: MAX_COOLDOWNS });
  }

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
    // Noted before the detectors run, so a finding made by this very use sees it.
    this.uses.note(record);
    for (const detector of this.detectors) {
      let findings: Finding[];
      try {
        findings = detector.observe(record);
      } catch (err) {
        this.logger.error('detector failed', { detector: detector.name, error: (err as Error).message });
        continue;
      }
      for (const finding of findings) {
        this.observer.found(detector.name, finding.severity);
        this.respond(detector.name, finding, record);
      }
    }
  }

  private respond(detector: string, finding: Finding, record: AuditRecord): void {
    const rule = matchRule(this.rules, detector, finding.severity, finding.actor.kind);
    if (!rule) return;
    const keyMaterialUsed = this.usedKeyMaterial(finding, record);
    for (const action of rule.actions) {
      if ((action === 'Revoke' || action === 'Deactivate' || action === 'Disable') && !keyMaterialUsed) continue;
      const cooldownKey = `${finding.actor.kind}:${finding.actor.subject}|${action}`;
      const now = this.clock.now().getTime();
      if (now - (this.lastAction.get(cooldownKey) ?? -Infinity) < this.cooldownMs) continue;
      this.lastAction.set(cooldownKey, now);
      const work = this.act(detector, finding, action)
        .then((ok) => this.observer.acted(action, ok ? 'success' : 'failed'))
        .finally(() => this.pending.delete(work));
      this.pending.add(work);
    }
  }

  /** True when the finding's actor used the material of the finding's key with success within the finding's window. */
  private usedKeyMaterial(finding: Finding, record: AuditRecord): boolean {
    const keyId = (finding.details.resource ?? '').replace(/^key:/, '');
    if (keyId === '') return false;
    const windowSeconds = Number(finding.details.windowSeconds);
    if (!(windowSeconds > 0))
      return usedMaterial(record) && record.resource === keyId && record.principal.subject === finding.actor.subject;
    return this.uses.usedSince(finding.actor, keyId, Date.parse(record.occurredAt) - windowSeconds * 1000);
  }

  /** Runs one action; true when it took effect (and its audit record was written). */
  private async act(detector: string, finding: Finding, action: Action): Promise<boolean> {
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
    if (action === 'RevokeAgent') {
      return this.operations
        .run(
          'RevokeAgent',
          { agentId: finding.actor.subject },
          {
            principal: SYSTEM_PRINCIPAL,
            requestId: correlationId,
            door: 'internal',
            decorate: {
              context,
              outcome: (o, message) =>
                o === 'Success' ? `${alert} Success agent revoked` : `${alert} Failed ${o}: ${message ?? ''}`,
            },
          },
        )
        .then(
          () => true,
          () => false,
        ); // the failure is on the row the pipeline wrote
    }
    if (action === 'Revoke' || action === 'Deactivate' || action === 'Disable') {
      const reason = `auto-response to ${detector} (${finding.severity}) by ${finding.actor.subject}`;
      const disable = action === 'Disable';
      return this.operations
        .run(
          disable ? 'DisableKey' : 'RevokeKey',
          { id: keyId, reason },
          {
            principal: SYSTEM_PRINCIPAL,
            requestId: correlationId,
            door: 'internal',
            decorate: {
              context,
              resource: () => `key:${keyId}`,
              outcome: (o, message) =>
                o === 'Success'
                  ? `${alert} Success key ${disable ? 'disabled' : 'revoked'}`
                  : `${alert} Failed ${o}: ${message ?? ''}`,
            },
          },
        )
        .then(
          () => true,
          () => false,
        ); // the failure is on the row the pipeline wrote
    }
    const record: AuditRecord = {
      ...auditIdentity(this.clock.now()),
      principal: { subject: SYSTEM_PRINCIPAL.subject, kind: SYSTEM_PRINCIPAL.kind },
      operation: action,
      resource: `key:${keyId}`,
      outcome: `${alert} Success${action === 'Freeze' ? ' intent recorded; no automatic freeze' : ''}`,
      // An annotation is written by the service itself, like the pipeline's rows of its internal actors.
      context: { ...context, door: 'internal' },
      correlationId,
    };
    try {
      await this.audit.record(record);
      return true;
    } catch (err) {
      this.logger.error('auto-response audit write failed', { recId, error: (err as Error).message });
      return false;
    }
  }
}
