import type { AuditRecord, PrincipalKind } from '../model/index.ts';
import { createPortRef } from './port-ref.ts';

export const SEVERITIES = ['Low', 'Medium', 'High'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** What a detector reports about one actor: how serious, who, what it saw. */
export interface Finding {
  severity: Severity;
  actor: { subject: string; kind: PrincipalKind };
  /**
   * details.resource names the target: a key id. details.windowSeconds, when given, is the span of time
   * the finding covers, ending at the record that made it (a rate over a window); without it the finding
   * is about that record alone. The auto-responder revokes the key only for successful uses of its
   * material by the actor within that span.
   */
  details: Record<string, string>;
  message: string;
}

/**
 * An anomaly detector: sees every audit record, keeps bounded per-actor state, and reports
 * findings. It must be cheap (it runs on the request path's audit step) and must never throw.
 */
export interface Detector {
  readonly name: string;
  observe(record: AuditRecord): Finding[];
  /**
   * For the risk score: how unusual this request would be, from 0 to 1, judged from what the detector has
   * seen so far (before this request). `request` is the request as its audit record would read (outcome
   * still empty). Must not change the detector's state.
   */
  riskSignal?(request: AuditRecord): number;
}

export const detectorPort = createPortRef<Detector>('detector', { multiple: true });
