import { SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { Principal } from '../model/index.ts';

const tracer = trace.getTracer('svc-kms');

/** Opens the kms.<operation> span of SPEC 6; a no-op unless the OpenTelemetry SDK was started. */
export function startOperationSpan(operation: string): Span {
  return tracer.startSpan(`kms.${operation}`, { attributes: { 'svc.operation': operation } });
}

export function endOperationSpan(span: Span, principal: Principal | undefined, keyId: string | undefined, outcome: string, message?: string): void {
  if (principal) {
    span.setAttribute('svc.principal.subject', principal.subject);
    span.setAttribute('svc.principal.kind', principal.kind.toLowerCase());
  }
  if (keyId) span.setAttribute('svc.key.id', keyId);
  span.setAttribute('svc.outcome', outcome === 'Success' ? 'success' : `error_${outcome}`);
  if (outcome !== 'Success') span.setStatus({ code: SpanStatusCode.ERROR, message: message ?? outcome });
  span.end();
}
