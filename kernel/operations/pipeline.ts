import { auditIdentity } from '../audit/event-id.ts';
import type { Tracer } from '@opentelemetry/api';
import { boundRecord } from '../audit/bounds.ts';
import { isSvcError, SvcError } from '../errors.ts';
import { SYSTEM_PRINCIPAL, type AuditRecord, type Operation, type Principal } from '../model/index.ts';
import type { KmsMetrics } from '../observability/metrics.ts';
import { NO_SPAN, OperationSpan, type OperationTrace } from '../observability/trace-scope.ts';
import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import { type KeyScope, NO_KEYS } from '../ports/key-locate.ts';
import type { Policy, ResourceFacts } from '../ports/policy.ts';
import type { RiskAssessor, RiskDecision } from '../ports/risk.ts';
import { compileValidator, type Validator } from '../validation.ts';
import { isKeyResource } from '../audit/bounds.ts';
import { agentKeyScope, agentMayTouch, aliasesOfPatterns, outsideAgentKeys } from '../auth/agent-keys.ts';
import { type AliasResolver, namesAlias, resolveAliases } from './key-fields.ts';
import { nulCharacterError } from './nul-characters.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { AnyOperation, AuditFacts, OperationCall } from './operation.ts';

/** Who runs an operation, as a door (or an internal actor) tells the pipeline. */
export interface Caller {
  principal: Principal;
  requestId: string;
  /**
   * The door the call came through, audited as context `door`: `http` (the REST API), `mcp`, `internal`
   * (the service's own actors: auto-responder, rotation scheduler, rewrap) or a plugin door's name.
   */
  door: 'http' | 'mcp' | 'internal' | (string & {});
  /**
   * Audit context the door adds about the call (`agent.model`, `agent.promptId`, `mcp.client`): at most
   * DOOR_CONTEXT_MAX entries, bounded and cleaned like every context value. The door refuses control
   * characters before the call (400 InvalidField); the kernel's own keys (`door`, `source.ip`, risk and
   * the handler's facts) are never overridden by it.
   */
  context?: Readonly<Record<string, string>>;
  /** The remote address, for doors that have one; stamped as context `source.ip`. */
  sourceIp?: string;
  /** Internal actors shape their rows (auto-responder rows name `key:<id>` and an AnomalyAlert outcome). */
  decorate?: {
    context?: Record<string, string>;
    resource?: (resource: string) => string;
    outcome?: (outcome: string, message: string | undefined) => string;
  };
  /**
   * For svc-system only (ignored for any other principal): a failure this returns true for writes no
   * audit record, because the call changed nothing and another run's record already tells what
   * happened (two nodes carrying out one scheduled destruction: the loser of the race stays quiet).
   */
  unaudited?: (failure: unknown) => boolean;
}

/** The audit step as the pipeline needs it: the primary write (fail closed), then fan-out and listeners. */
export interface AuditWriter {
  record(record: AuditRecord, journaled?: boolean): Promise<void>;
}

export interface PipelineDeps {
  policy: Policy;
  risk?: RiskAssessor;
  audit: AuditWriter;
  metrics: KmsMetrics;
  logger: Logger;
  clock: Clock;
  /** The tracer of the started OpenTelemetry SDK; without one, operations make no span objects at all. */
  tracer?: Tracer;
  /** Per-principal rate limits; absent when rateLimit.enabled is false. */
  rateLimiter?: RateLimiter;
  /** Resolves `alias/NAME` in an operation's key fields (OperationDef.keyRefs); absent: aliases stay as written. */
  aliases?: AliasResolver;
}

interface Compiled {
  def: AnyOperation;
  validate: Validator;
  gated: boolean;
}

/**
 * One run of one operation: what the handler sees (principal, request id, trace scope) and what the
 * audit step needs to build the record. A class, not closures: the service runs under tsx, whose
 * keepNames wraps every closure made per request in a defineProperty call.
 */
class PipelineCall implements OperationCall {
  /** The record that committed with the call's state change, if any. */
  committed: AuditRecord | undefined;
  /** For an agent with `alias:` key patterns: the keys those aliases name at this call. */
  aliasKeys: ReadonlySet<string> | undefined;
  readonly principal: Principal;
  readonly requestId: string;

  constructor(
    private readonly clock: Clock,
    private readonly policy: Policy,
    readonly def: AnyOperation,
    readonly caller: Caller,
    readonly resource: string,
    readonly context: Record<string, string>,
    readonly trace: OperationTrace,
  ) {
    this.principal = caller.principal;
    this.requestId = caller.requestId;
  }

  successRecord(facts?: AuditFacts): AuditRecord {
    return this.record(facts, facts?.outcome ?? 'Success', undefined);
  }

  journaled(record: AuditRecord): void {
    this.committed = record;
  }

  permits(operation: Operation, resource: string, facts?: ResourceFacts): boolean {
    if (this.principal === SYSTEM_PRINCIPAL) return true;
    if (!this.policy.authorize(this.principal, operation, resource, facts).allowed) return false;
    return !isKeyResource(resource) || agentMayTouch(this.principal, facts, this.aliasKeys);
  }

  keyScope(operation: Operation): KeyScope | undefined {
    if (this.principal === SYSTEM_PRINCIPAL) return 'every';
    const scope = this.policy.keyScope?.(this.principal, operation);
    const principal = this.principal;
    if (principal.kind !== 'Agent' || principal.keys === undefined || scope === NO_KEYS) return scope;
    // Two unions of patterns do not intersect as one: the agent's own (the narrower, as a rule) bounds the
    // read, and every row is still checked against the policy and the patterns with `permits`.
    return agentKeyScope(principal.keys, principal.parent, this.aliasKeys);
  }

  /** The call's audit record: bounded, with the facts of its outcome and the caller's decoration. */
  record(facts: AuditFacts | undefined, outcome: string, message: string | undefined): AuditRecord {
    const decorate = this.caller.decorate;
    // The context object is this call's own: facts are added to it, never spread into a new one.
    if (facts?.context) for (const key in facts.context) this.context[key] = facts.context[key]!;
    // Named, not spread: `...auditIdentity()` in this literal cost encrypt and sign 8-16% of their calls per CPU second.
    const { id, occurredAt } = auditIdentity(this.clock.now());
    return boundRecord({
      id,
      occurredAt,
      principal: { subject: this.principal.subject, kind: this.principal.kind },
      operation: this.def.operation,
      resource: facts?.resource ?? this.resource,
      outcome: decorate?.outcome ? decorate.outcome(outcome, message) : outcome,
      context: this.context,
      correlationId: this.requestId,
    });
  }
}

/**
 * The one entry point of every KMS operation, whatever the door: rate limit -> authorize -> risk ->
 * validate -> handle -> audit -> metrics -> span. Exactly one audit record per call, success or not, written to the
 * primary sink before the result is returned; if that write fails the caller gets no result (fail closed),
 * unless the call's state change committed with its record in the journal's outbox: then the record is
 * durable, the relay delivers it, and the change is acknowledged with its normal answer.
 * `svc-system` (internal actors) skips policy and risk: no credential can carry that subject.
 */
export class OperationPipeline {
  private readonly byId = new Map<string, Compiled>();

  constructor(
    operations: AnyOperation[],
    private readonly deps: PipelineDeps,
  ) {
    const problems: string[] = [];
    for (const def of operations) {
      if (this.byId.has(def.id)) problems.push(`operation "${def.id}" is declared twice`);
      this.byId.set(def.id, {
        def,
        validate: compileValidator(def.input),
        gated: def.attributes?.riskGated !== false && def.operation !== 'Locate',
      });
    }
    if (problems.length) throw new Error(`operations: ${problems.join('; ')}`);
  }

  private limit(principal: Principal, now: number, units: number): void {
    try {
      this.deps.rateLimiter!.take(principal, now, units);
    } catch (err) {
      this.deps.metrics.rateLimited(principal.kind);
      throw err;
    }
  }

  /** The keys an agent's `alias:` patterns name now (undefined when it has none). */
  private async aliasKeysOf(patterns: readonly string[]): Promise<ReadonlySet<string> | undefined> {
    const names = aliasesOfPatterns(patterns);
    if (names.length === 0 || !this.deps.aliases) return undefined;
    const ids = await Promise.all(names.map((name) => this.deps.aliases!.resolve(name)));
    return new Set(ids.filter((id): id is string => id !== undefined));
  }

  list(): AnyOperation[] {
    return [...this.byId.values()].map((c) => c.def);
  }

  /**
   * The operations `principal` may call (OperationRunner.permitted): no rate limit, audit or metrics. Key
   * operations (they read the target key's facts) ask the policy's `mayEver`; the others ask `authorize`
   * for the resource their declaration derives from no input (`audit`, `advisor`, `agent:new`).
   */
  permitted(principal: Principal): AnyOperation[] {
    if (principal === SYSTEM_PRINCIPAL) return this.list();
    const policy = this.deps.policy;
    return this.list().filter((def) => {
      if (def.attributes?.humanOnly && principal.kind !== 'Human') return false;
      if (def.attributes?.agentsRefused && principal.kind === 'Agent') return false;
      if (def.attributes?.authorizesItself) return true;
      if (!def.resourceFacts) return policy.authorize(principal, def.operation, def.resource(undefined)).allowed;
      const needs = def.attributes?.alsoNeeds ? [def.operation, ...def.attributes.alsoNeeds] : [def.operation];
      if (policy.mayEver) return needs.every((operation) => policy.mayEver!(principal, operation));
      return principal.kind !== 'Agent' || needs.every((operation) => principal.allowedOperations.includes(operation));
    });
  }

  /**
   * Runs operation `id`. `rejected` is an input error a door found before the pipeline (malformed JSON): it is audited
   * like any failure.
   */
  async run(id: string, input: unknown, caller: Caller, rejected?: SvcError): Promise<unknown> {
    const op = this.byId.get(id);
    if (!op) throw new SvcError('NotFound', 'no such operation');
    const { def } = op;
    const { principal } = caller;
    // A NUL anywhere in the input is refused before authorization (whose resource facts come from the
    // database) and before any handler could carry it to a database, whatever door it came through; a
    // door that refused the rest of a call still hands over what names its resource (the path's key id).
    const nul = nulCharacterError(input);
    const started = performance.now();
    const span = this.deps.tracer ? new OperationSpan(this.deps.tracer, def.operation) : NO_SPAN;
    const context = callContext(caller);
    // Checked before any await: a call by key id (nearly every call) makes no promise for it.
    if (def.keyRefs && this.deps.aliases && !nul && namesAlias(def.keyRefs, input))
      await resolveAliases(def.keyRefs, input, this.deps.aliases, context);
    const derived = def.resource(input as never);
    const resource = caller.decorate?.resource ? caller.decorate.resource(derived) : derived;
    if (caller.decorate?.context) Object.assign(context, caller.decorate.context);
    const call = new PipelineCall(this.deps.clock, this.deps.policy, def, caller, resource, context, span);

    let failure: unknown;
    let outcome = 'Success';
    let handled: { result: unknown; audit?: AuditFacts } | undefined;
    try {
      if (principal !== SYSTEM_PRINCIPAL) {
        if (this.deps.rateLimiter && def.attributes?.rateLimited !== false)
          this.limit(principal, started, def.cost ? def.cost(input as never) : 1);
        if (def.attributes?.humanOnly && principal.kind !== 'Human') {
          throw new SvcError(
            'PermissionDenied',
            `${def.operation} (${def.id}) is for human principals only; ${principal.kind} callers are refused`,
          );
        }
        if (def.attributes?.agentsRefused && principal.kind === 'Agent') {
          throw new SvcError(
            'PermissionDenied',
            `${def.id} is refused to agents whatever their scopes: ${def.attributes.agentsRefused}; a Human or a Service must call it`,
          );
        }
        if (nul) throw nul;
        // A key-scoped agent is bounded by its key patterns on every key it touches, whatever the policy.
        const scopedAgent = principal.kind === 'Agent' && principal.keys !== undefined;
        if (scopedAgent) call.aliasKeys = await this.aliasKeysOf(principal.keys!);
        if (!def.attributes?.authorizesItself) {
          const facts =
            (this.deps.policy.usesResourceFacts || scopedAgent) && def.resourceFacts
              ? await def.resourceFacts(input as never, principal)
              : undefined;
          const decision = this.deps.policy.authorize(principal, def.operation, resource, facts);
          if (!decision.allowed) throw new SvcError('PermissionDenied', decision.reason);
          // A call on no key (a listing: its handler checks each key with `permits`) has neither facts nor a key resource.
          const onKey = facts !== undefined || isKeyResource(resource);
          if (scopedAgent && def.resourceFacts && onKey && !agentMayTouch(principal, facts, call.aliasKeys))
            throw outsideAgentKeys(principal, def.operation);
        }
        if (this.deps.risk && op.gated)
          gateOnRisk(
            this.deps.risk.assess({ principal, operation: def.operation, resource, sourceIp: caller.sourceIp ?? '' }),
            context,
          );
      }
      if (rejected ?? nul) throw rejected ?? nul;
      op.validate(input);
      if (def.inputFacts) Object.assign(context, def.inputFacts(input));
      handled = await def.handle(input, call);
      if (handled.audit?.outcome) outcome = handled.audit.outcome;
    } catch (err) {
      failure = err;
      outcome = isSvcError(err) ? err.code : 'InternalError';
      if (!isSvcError(err))
        this.deps.logger.error('operation failed unexpectedly', {
          requestId: caller.requestId,
          operation: def.id,
          error: (err as Error)?.stack ?? String(err),
        });
    }

    if (failure && principal === SYSTEM_PRINCIPAL && !call.committed && caller.unaudited?.(failure)) {
      span.end(principal, resource, outcome, (failure as Error).message);
      throw failure;
    }
    // A change that committed has its record already (journaled with it), even if the handler failed
    // afterwards: that record is the call's one record.
    const journaled = call.committed !== undefined;
    const record = journaled
      ? call.committed!
      : call.record(failure ? undefined : handled?.audit, outcome, failure ? (failure as Error).message : undefined);
    try {
      await (span.recording
        ? span.child('audit.write', () => this.deps.audit.record(record, journaled))
        : this.deps.audit.record(record, journaled));
    } catch (err) {
      if (journaled && !failure) {
        // The change committed with its record in the journal's outbox, so the record is durable and the
        // relay writes it once the store is back: the caller gets its answer (withholding it made clients
        // create a second key, or believe a key they had destroyed was not).
        this.deps.logger.warn(
          'primary audit sink write failed; the committed change is acknowledged and its record waits in the outbox',
          { requestId: caller.requestId, operation: def.id, error: (err as Error).message },
        );
      } else {
        // Fail closed: without its audit record the caller gets no result, not even a success.
        this.deps.logger.error('primary audit sink write failed; result withheld', {
          requestId: caller.requestId,
          operation: def.id,
          journaled,
          error: (err as Error).message,
        });
        failure =
          isSvcError(err) && err.code === 'ServiceUnavailable'
            ? new SvcError(
                'ServiceUnavailable',
                'the audit store is unreachable, so the operation result is withheld; retry later',
                { retryAfterSeconds: 5 },
              )
            : new SvcError('InternalError', 'the audit record could not be written; the operation result is withheld');
        outcome = (failure as SvcError).code;
      }
    }

    this.deps.metrics.observe(
      def.operation,
      outcome === 'InvalidSignature' ? 'Success' : outcome,
      (performance.now() - started) / 1000,
    );
    span.end(
      principal,
      record.resource,
      failure ? outcome : 'Success',
      failure ? (failure as Error).message : undefined,
    );
    if (failure) throw failure;
    return handled!.result;
  }
}

/** How many context entries a door may add to a call's record (the record holds at most 64 in all). */
export const DOOR_CONTEXT_MAX = 8;

/** Context keys only the kernel writes (door, source.ip, the risk stamps): a door's entries never forge them. */
const KERNEL_CONTEXT = /^(door$|source\.|risk\.|outcome\.)/;

/** A call's first audit context: the door's entries, then the door's name and the remote address. */
function callContext(caller: Caller): Record<string, string> {
  if (caller.context === undefined) {
    return caller.sourceIp === undefined ? { door: caller.door } : { door: caller.door, 'source.ip': caller.sourceIp };
  }
  const context: Record<string, string> = {};
  if (caller.context) {
    let n = 0;
    for (const key in caller.context) {
      if (n++ === DOOR_CONTEXT_MAX) break;
      const value = caller.context[key];
      if (typeof value === 'string' && !KERNEL_CONTEXT.test(key)) context[key] = value;
    }
  }
  context.door = caller.door;
  if (caller.sourceIp !== undefined) context['source.ip'] = caller.sourceIp;
  return context;
}

/** Stamps the risk decision on the audit context and refuses StepUp (401) and Deny (403, "risk: "). */
function gateOnRisk(risk: RiskDecision, context: Record<string, string>): void {
  context['risk.score'] = risk.score.toFixed(2);
  context['risk.factors'] =
    risk.factors.length === 0 ? '' : risk.factors.map((f) => `${f.name}:${f.weight.toFixed(2)}`).join(';');
  context['outcome.decision'] = risk.decision;
  if (risk.decision === 'Allow') return;
  context['outcome.decision.reason'] = risk.reason;
  if (risk.decision === 'StepUp')
    throw new SvcError('StepUpRequired', `step-up authentication required: ${risk.reason}`);
  throw new SvcError('PermissionDenied', `risk: ${risk.reason}`);
}
