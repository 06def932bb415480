import type { Context, Middleware } from 'koa';
import type { AuditPipeline } from '../audit/pipeline.ts';
import { isSvcError, SvcError } from '../errors.ts';
import type { Principal } from '../model/index.ts';
import type { KmsMetrics } from '../observability/metrics.ts';
import { endOperationSpan, startOperationSpan } from '../observability/tracing.ts';
import type { Authenticator, CredentialSource } from '../ports/authenticator.ts';
import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import type { Policy } from '../ports/policy.ts';
import type { RiskAssessor, RiskDecision } from '../ports/risk.ts';
import type { GuardedRoute, RouteRequest } from './route.ts';
import { compileValidator } from './validation.ts';

export interface GuardDeps {
  authenticator: Authenticator;
  policy: Policy;
  risk?: RiskAssessor;
  audit: AuditPipeline;
  metrics: KmsMetrics;
  logger: Logger;
  clock: Clock;
}

/**
 * The fixed chain every KMS operation runs through (DESIGN "The request path"): authenticate,
 * human-only rule, authorize, validate, handle, then one audit record (fail closed), metrics and the
 * span. A request without a valid credential has no principal and so no audit row; it is counted.
 */
export function guardRoute(route: GuardedRoute, deps: GuardDeps): Middleware {
  const validateBody = route.body ? compileValidator(route.body) : undefined;
  const validateQuery = route.query ? compileValidator(route.query) : undefined;
  const { operation } = route;

  return async (ctx) => {
    const started = performance.now();
    const span = startOperationSpan(operation);
    const requestId = ctx.state.requestId as string;
    let principal: Principal | undefined;
    let req: RouteRequest | undefined;
    let outcome = 'Success';
    let failure: unknown;
    let result: { status?: number; body: unknown } | undefined;
    try {
      principal = await deps.authenticator.authenticate(new KoaCredentials(ctx));
      req = {
        principal,
        params: ctx.params as Record<string, string>,
        query: ctx.query as Record<string, string>,
        body: (ctx.request as { body?: unknown }).body,
        requestId,
        sourceIp: ctx.req.socket.remoteAddress ?? '',
        audit: { context: {} },
      };
      if (route.humanOnly && principal.kind !== 'Human') {
        throw new SvcError('PermissionDenied', `${operation} on ${route.path} is for human principals only; ${principal.kind} callers are refused`);
      }
      const resource = route.resource(req);
      const decision = deps.policy.authorize(principal, operation, resource);
      if (!decision.allowed) throw new SvcError('PermissionDenied', decision.reason);
      if (deps.risk && operation !== 'Locate') gateOnRisk(deps.risk.assess({ principal, operation, resource, sourceIp: req.sourceIp }), req);
      validateQuery?.(req.query, 'query');
      validateBody?.(req.body, 'body');
      result = await route.handler(req);
    } catch (err) {
      failure = err;
      outcome = isSvcError(err) ? err.code : 'InternalError';
    }

    if (principal && req) {
      const resource = req.audit.resource ?? route.resource(req);
      req.audit.context['source.ip'] = req.sourceIp;
      try {
        await deps.audit.record({
          occurredAt: deps.clock.now().toISOString(),
          principal: { subject: principal.subject, kind: principal.kind },
          operation,
          resource,
          outcome: failure ? outcome : (req.audit.outcome ?? outcome),
          context: req.audit.context,
          correlationId: requestId,
        });
      } catch (err) {
        // Fail closed: without its audit record the caller gets no result, not even a success.
        deps.logger.error('primary audit sink write failed; request refused', { requestId, operation, error: (err as Error).message });
        failure = isSvcError(err) && err.code === 'ServiceUnavailable'
          ? new SvcError('ServiceUnavailable', 'the audit store is unreachable, so the operation result is withheld; retry later')
          : new SvcError('InternalError', 'the audit record could not be written; the operation result is withheld');
        outcome = (failure as SvcError).code;
      }
    }

    deps.metrics.observe(operation, outcome, (performance.now() - started) / 1000);
    endOperationSpan(span, principal, ctx.params?.id, outcome, failure instanceof Error ? failure.message : undefined);
    if (failure) throw failure;
    ctx.status = result!.status ?? route.successStatus ?? 200;
    ctx.body = result!.body;
  };
}

/** The request's headers as the authenticator reads them (a class, so no closure is made per request). */
class KoaCredentials implements CredentialSource {
  constructor(private readonly ctx: Context) {}

  header(name: string): string | undefined {
    return this.ctx.get(name) || undefined;
  }
}

/** Stamps the risk decision on the audit context and refuses StepUp (401) and Deny (403, "risk: "). */
function gateOnRisk(risk: RiskDecision, req: RouteRequest): void {
  req.audit.context['risk.score'] = risk.score.toFixed(2);
  req.audit.context['risk.factors'] = risk.factors.length === 0 ? '' : risk.factors.map((f) => `${f.name}:${f.weight.toFixed(2)}`).join(';');
  req.audit.context['outcome.decision'] = risk.decision;
  if (risk.decision === 'Allow') return;
  req.audit.context['outcome.decision.reason'] = risk.reason;
  if (risk.decision === 'StepUp') throw new SvcError('StepUpRequired', `step-up authentication required: ${risk.reason}`);
  throw new SvcError('PermissionDenied', `risk: ${risk.reason}`);
}
