import type { ServerResponse } from 'node:http';
import {
  type AccessKeyCredentials,
  type AuditPipelinePort,
  type Authenticator,
  type Clock,
  type Door,
  type DoorHttpRequest,
  type DoorMount,
  type Logger,
  MAX_JSON_DEPTH,
  nestedDeeperThan,
  type OperationRunner,
  readRawBody,
  SvcError,
  auditIdentity,
} from '../../../kernel/index.ts';
import { awsCall } from './aws-call.ts';
import { type AwsCaller, AwsCallers, KnownKeyRefusal } from './aws-caller.ts';
import { AwsError, awsErrorOf } from './aws-errors.ts';
import { AWS_OPERATIONS } from './operations/index.ts';
import { RefusalBudget } from './refusal-budget.ts';

export const AWS_PATH = '/aws/kms';
const TARGET = /^TrentService\.([A-Za-z]{1,64})$/;
const JSON_TYPE = 'application/x-amz-json-1.1';

export interface AwsDoorSettings {
  accountId: string;
  maxBodyBytes: number;
}

export interface AwsDoorDeps {
  runner: OperationRunner;
  authenticator: Authenticator;
  credentials: AccessKeyCredentials;
  audit: AuditPipelinePort;
  clock: Clock;
  logger: Logger;
}

/**
 * The AWS KMS API (JSON 1.1) at /aws/kms on the service's listener: a request signed with Signature
 * Version 4 by an access key runs, as the key's principal (or the agent of its session token), the
 * service operations its AWS operation maps to, through the one pipeline (audited with `door: aws`,
 * `aws.accessKeyId`, `aws.operation`); answers and errors have AWS's shapes and exception names.
 */
export class AwsKmsDoor implements Door {
  readonly name = 'aws';
  private readonly callers: AwsCallers;
  private readonly refusals = new RefusalBudget();

  constructor(
    private readonly deps: AwsDoorDeps,
    private readonly settings: AwsDoorSettings,
  ) {
    this.callers = new AwsCallers(deps.credentials, deps.authenticator);
  }

  /** The service operation (Encrypt, Sign...) of each service operation id, for the records of refused signatures. */
  private operationOf = new Map<string, string>();

  async start(): Promise<void> {
    this.operationOf = new Map(this.deps.runner.list().map((def) => [def.id, def.operation]));
  }
  async stop(): Promise<void> {}

  mounts(): DoorMount[] {
    return [{ path: AWS_PATH, handle: (request) => this.handle(request) }];
  }

  private async handle(request: DoorHttpRequest): Promise<void> {
    const { req, res } = request;
    res.setHeader('x-amzn-RequestId', request.requestId);
    try {
      if (req.method !== 'POST' || (request.path !== '' && request.path !== '/'))
        throw new AwsError('UnknownOperationException', `the AWS KMS API is POST ${AWS_PATH} with X-Amz-Target`, 404);
      answer(res, 200, await this.call(request));
    } catch (err) {
      const error = awsErrorOf(err);
      if (error.status >= 500)
        this.deps.logger.error('AWS door call failed', { requestId: request.requestId, error: (err as Error)?.stack });
      res.setHeader('x-amzn-ErrorType', error.type);
      answer(res, error.status, { __type: error.type, message: error.message });
    }
  }

  private async call(request: DoorHttpRequest): Promise<Record<string, unknown>> {
    const { req } = request;
    const identified = await this.callers.identify(req.headers.authorization);
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = TARGET.exec(target)?.[1];
    const def =
      operation !== undefined && Object.hasOwn(AWS_OPERATIONS, operation) ? AWS_OPERATIONS[operation] : undefined;
    const body = await readRawBody(req, this.settings.maxBodyBytes);
    let caller: AwsCaller;
    try {
      caller = await this.callers.verify(
        { method: req.method!, target: req.url!, rawHeaders: req.rawHeaders, body },
        identified,
        this.deps.clock.now(),
      );
    } catch (err) {
      if (err instanceof KnownKeyRefusal) {
        await this.auditRefusal(err, operation ?? 'unknown', def?.primary, request.requestId);
        throw err.refusal;
      }
      throw err;
    }
    if (!def) throw new AwsError('UnknownOperationException', `unknown X-Amz-Target: ${target.slice(0, 100)}`);
    const context = { 'aws.accessKeyId': caller.accessKeyId, 'aws.operation': operation! };
    const call = awsCall(
      this.deps.runner,
      {
        principal: caller.principal,
        requestId: request.requestId,
        door: this.name,
        context,
        sourceIp: request.sourceIp,
      },
      { region: caller.region, accountId: this.settings.accountId },
    );
    let input: Record<string, unknown>;
    try {
      const text = body.length === 0 ? '{}' : body.toString('utf8');
      // As on every door: a body nested thousands of levels deep would hold the event loop while it parses.
      if (nestedDeeperThan(text, MAX_JSON_DEPTH)) throw new Error(`it is nested deeper than ${MAX_JSON_DEPTH} levels`);
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('the request body must be a JSON object');
      input = parsed as Record<string, unknown>;
    } catch (err) {
      // Refused by the pipeline, so the refusal is authorized and audited as the operation's.
      const message = `the request body is not a JSON object: ${(err as Error).message}`;
      await call.run(def.primary, () => {
        throw new SvcError('BadRequest', message);
      });
      throw new SvcError('BadRequest', message);
    }
    return def.run(input, call);
  }

  /**
   * A bad signature by a known access key is an attempt on its principal: audited as such, at most
   * RefusalBudget's share per key id (a key id is no secret, and the records name its principal).
   */
  private async auditRefusal(
    refusal: KnownKeyRefusal,
    awsOperation: string,
    primary: string | undefined,
    requestId: string,
  ): Promise<void> {
    const budget = this.refusals.take(refusal.accessKeyId, this.deps.clock.now().getTime());
    if (!budget.record) return;
    const principal = refusal.principal;
    await this.deps.audit.record({
      ...auditIdentity(this.deps.clock.now()),
      principal: { subject: principal.subject, kind: principal.kind },
      operation: (primary && this.operationOf.get(primary)) ?? 'Get',
      resource: `access-key:${refusal.accessKeyId}`,
      outcome: 'Unauthorized',
      context: {
        door: this.name,
        'aws.accessKeyId': refusal.accessKeyId,
        'aws.operation': awsOperation.slice(0, 64),
        'aws.exception': refusal.refusal.type,
        reason: refusal.refusal.message,
        ...(budget.skipped > 0 ? { 'aws.refusalsNotRecorded': String(budget.skipped) } : {}),
      },
      correlationId: requestId,
    });
  }
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': bytes.length });
  res.end(bytes);
}
