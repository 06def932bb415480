import type { PrincipalKind } from './principal.ts';

/**
 * One audit row. Never holds key material, plaintext or tokens.
 * `id` is unique per record: sinks use it to store a record once even when it is delivered twice (a
 * record relayed from the outbox after its first write was not acknowledged).
 */
export interface AuditRecord {
  id: string;
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
  /** Records whose context names this prompt id (`agent.promptId`, from X-Svc-Prompt-Id or an MCP call's `_meta`). */
  promptId?: string;
  limit: number;
  offset: number;
  /**
   * A page's `next` cursor (AuditPage): this page then starts right after that page's last record, so a
   * long read seeks instead of skipping `offset` rows (which it may still add, counted from the cursor).
   */
  before?: string;
  /**
   * A page of a long read (an advisor window of up to 50,000 rows): a sink may serve it at a lower
   * priority than single pages (GET /v1/audit), so a long read yields the CPU to them and to the request path.
   */
  background?: boolean;
}
