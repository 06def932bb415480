import type { PrincipalKind } from './principal.ts';

/** One audit row (SPEC 2 AuditRecord, DECISIONS "Audit"). Never holds key material, plaintext or tokens. */
export interface AuditRecord {
  occurredAt: string;
  principal: { subject: string; kind: PrincipalKind };
  operation: string;
  resource: string;
  outcome: string;
  context: Record<string, string>;
  correlationId: string;
}

export interface AuditQuery {
  since?: string;
  until?: string;
  actor?: string;
  key?: string;
  op?: string;
  limit: number;
  offset: number;
}
