import type { Static, TSchema } from '@sinclair/typebox';
import type { ErrorCode } from '../errors.ts';
import type { AuditRecord, Operation, Principal } from '../model/index.ts';
import type { TraceScope } from '../observability/trace-scope.ts';
import { createPortRef } from '../ports/port-ref.ts';
import type { KeyScope } from '../ports/key-locate.ts';
import type { ResourceFacts } from '../ports/policy.ts';

/**
 * What a handler tells the audit step about its call. Returned with the result, never written into a
 * shared object. Values are bounded and cleaned by the pipeline; they must never hold secrets.
 */
export interface AuditFacts {
  /** Replaces the derived resource (a successful create names the new key id). */
  resource?: string;
  /** Replaces the outcome of a successful call (verify with valid:false is InvalidSignature). */
  outcome?: string;
  context?: Record<string, string>;
}

export interface Handled<O> {
  result: O;
  audit?: AuditFacts;
}

/**
 * What a handler sees of its call besides the input: who asks, the correlation id, the trace scope for
 * child spans, and, for handlers that change state in the journal, the record to write with the change.
 */
export interface OperationCall {
  readonly principal: Principal;
  readonly requestId: string;
  readonly trace: TraceScope;
  /**
   * The audit record of this call's success, for a handler that commits a state change: it is written
   * in the same journal transaction as the change (the outbox), so the change never exists without it.
   * Facts given here replace the handler's returned ones. Building it commits nothing: an attempt that
   * loses a race builds another one next time.
   */
  successRecord(facts?: AuditFacts): AuditRecord;
  /** Tells the pipeline that this record committed with the change: it is then the call's one record. */
  journaled(record: AuditRecord): void;
  /**
   * What the policy says of this caller doing `operation` on `resource` (always true for svc-system).
   * `facts` are the resource key's (owner, name) for a policy whose bindings are scoped to keys: an
   * operation that touches a second key (re-encryption's destination) asks about it this way.
   */
  permits(operation: Operation, resource: string, facts?: ResourceFacts): boolean;
  /**
   * The keys this caller may perform `operation` on, as the policy describes them for a key index
   * (Policy.keyScope); undefined when the policy cannot say, and 'every' for svc-system.
   */
  keyScope(operation: Operation): KeyScope | undefined;
}

export interface OperationAttributes {
  /** Changes a key for good (Rotate, Compromise, Destroy, Revoke): the risk step is stricter. */
  destructive?: boolean;
  /**
   * Changes nothing (reads a key, its public key, the audit trail, the advisor's reports; verifies a
   * signature): a door may say so to its callers (MCP's readOnlyHint). It changes no pipeline step: a
   * read is authorized, risk-gated and audited like any call.
   */
  readOnly?: boolean;
  /** Only Human principals may call it (403 for Service and Agent). */
  humanOnly?: boolean;
  /** false: the risk decision never refuses this operation (Locate is never gated). */
  riskGated?: boolean;
  /**
   * false: the rate limit never refuses this operation and it takes nothing from the caller's bucket.
   * For stopping others only (the kill switch, token revocation): a rogue agent that puts its parent's
   * bucket in debt must not lock the parent out of stopping it.
   */
  rateLimited?: boolean;
  /**
   * The pipeline does not ask the policy; the handler decides with `call.permits`, because who may call
   * depends on what the call finds (the agent registry: a parent may always list and revoke its own agents).
   */
  authorizesItself?: boolean;
  /**
   * The operation's tool name on the MCP door when the snake_case of its id is not the name a model
   * should see (Wrap -> wrap_key); false keeps it off that door: an answer that holds a credential (a
   * new agent token) must not land in a model's context, and operator maintenance is not an agent's job.
   */
  toolName?: string | false;
  /**
   * Agents are refused (403) whatever their scopes, with this reason in the answer: the call hands out
   * or takes in raw key material (export, import), or erases at once what an agent may only schedule (trim).
   */
  agentsRefused?: string;
  /**
   * Operations the handler also asks the policy for, on another resource (re-encryption: Encrypt on the
   * destination key): a door lists the operation only to callers that may ever do all of them.
   */
  alsoNeeds?: Operation[];
}

/**
 * How the HTTP door exposes an operation. Path parameters and the body (or the query, for GET and DELETE) form the
 * input.
 */
export interface HttpBinding {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Koa-style path; `:name` segments become input fields of that name. */
  path: string;
  status?: number;
  /**
   * Answers that mean "taken, done later" (a destroy with a waiting period): 202 Accepted with this
   * body schema when `when(result)` is true, `status` otherwise. The operation's output schema must
   * admit both answers (one object: a tool's answer is one schema).
   */
  // `result` is the operation's output, which its declaration types; the binding is declared beside it.
  // biome-ignore lint/suspicious/noExplicitAny: typed by the declaration it belongs to.
  accepted?: { when(result: any): boolean; output: TSchema };
  /**
   * Input fields HTTP carries in request headers, field -> header name (`{ifMatch: 'If-Match'}`): what
   * HTTP defines as a header (a conditional request's precondition) stays one. Such a field is read from
   * its header only, never from the body or the query; an absent or empty header leaves it out.
   */
  requestHeaders?: Record<string, string>;
  /**
   * Response headers of a successful answer, header name -> what it says (the API docs) and its value
   * from the operation's output (`ETag`); a value of undefined sets no header.
   */
  responseHeaders?: Record<string, { description: string; value(result: unknown): string | undefined }>;
}

/**
 * One KMS operation, declared once for every door (HTTP today; MCP and KMIP later) and run by the one
 * pipeline: rate limit -> authorize -> risk -> validate -> handle -> audit -> metrics -> span.
 */
export interface OperationDef<I extends TSchema = TSchema, O extends TSchema = TSchema> {
  /** Unique identifier of the declaration (an OpenAPI operationId, a tool name): CreateKey, Sign, GetPublicKey. */
  id: string;
  /** The Operation it performs: what policy, scopes, audit rows, metrics and the span speak of. */
  operation: Operation;
  summary: string;
  /**
   * For a caller (a model choosing a tool, a reader of the API docs): what it does, when to use it, what
   * it returns and what it refuses, in a few sentences. Never secrets or deployment details. Doors fall
   * back to `summary` when absent.
   */
  description?: string;
  /** Documentation group (an OpenAPI tag). */
  group: string;
  input: I;
  output: O;
  /**
   * The audit resource, from the input: it runs before the input is validated, so it must accept any
   * value and read only the fields that name the target (`keyResource(input.id)` for key operations).
   */
  resource(input: Partial<Static<I>> | undefined): string;
  /**
   * Input fields that name a key (`id`, `destinationKeyId`): where a caller may write `alias/NAME`, which
   * the pipeline resolves to the key it names before anything else reads the input, and audits as
   * context `alias` (for `id`) or `<field>.alias`. Each call resolves once, so it uses one key throughout.
   */
  keyRefs?: readonly string[];
  /**
   * The target key's facts for policies that scope bindings to keys (owner, name). Runs before the
   * input is validated, like `resource`; undefined when the input names no existing key.
   */
  resourceFacts?(input: Partial<Static<I>> | undefined, principal: Principal): Promise<ResourceFacts | undefined>;
  /**
   * How many units of the caller's rate limit the call takes (a batch: its items); 1 when absent. Runs
   * before the input is validated, like `resource`, so it must accept any value; the limiter bounds it.
   */
  cost?(input: Partial<Static<I>> | undefined): number;
  /** Facts read from the input alone, audited whatever the outcome (context keys, lengths, a reason). */
  inputFacts?(input: Static<I>): Record<string, string>;
  attributes?: OperationAttributes;
  /** Error codes this operation answers beyond the ones every operation can answer (for the docs). */
  errors?: ErrorCode[];
  http?: HttpBinding;
  handle(input: Static<I>, call: OperationCall): Promise<Handled<Static<O>>>;
}

/** Declarations of any schemas in one list (the registry's): each was typed where it was declared. */
// A handler's input is contravariant, so no other type holds every declaration.
// biome-ignore lint/suspicious/noExplicitAny: a list of declarations of any schemas.
export type AnyOperation = OperationDef<any, any>;

/** Identity helper that types a declaration's handler by its schemas. */
export function defineOperation<I extends TSchema, O extends TSchema>(def: OperationDef<I, O>): OperationDef<I, O> {
  return def;
}

/** Feature plugins contribute their operations through this multiple port. */
export interface OperationContribution {
  operations: AnyOperation[];
  /** One sentence per documentation group these operations use (the OpenAPI tags' descriptions). */
  groups?: Record<string, string>;
}

export const operationsPort = createPortRef<OperationContribution>('operations', { multiple: true });
