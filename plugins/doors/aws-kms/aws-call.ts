import { type Caller, isSvcError, type OperationRunner, SvcError } from '../../../kernel/index.ts';
import { AwsError } from './aws-errors.ts';
import type { AwsInput } from './aws-input.ts';
import type { ArnScope } from './key-references.ts';

/** One AWS request as its operation sees it: where it is (for ARNs) and how to run the service's operations. */
export interface AwsCall extends ArnScope {
  /**
   * Runs one of the service's operations for this request, through the one pipeline. `build` makes its
   * input from the AWS request and may refuse it: the refusal is then the operation's, authorized and
   * audited like any other. Answers the result and the input as the pipeline left it (an alias in a key
   * field replaced by the id of the key it named).
   */
  run<T = Record<string, unknown>>(
    operationId: string,
    build: () => Record<string, unknown>,
  ): Promise<{ result: T; input: Record<string, unknown> }>;
}

export type AwsOperation = (input: AwsInput, call: AwsCall) => Promise<Record<string, unknown>>;

/** An AWS operation: the service operation a refusal of its input is audited under, and how it runs. */
export interface AwsOperationDef {
  primary: string;
  run: AwsOperation;
}

/** One request's calls: its caller (principal, request id, door context) and where it is. */
class RequestCall implements AwsCall {
  constructor(
    private readonly runner: OperationRunner,
    private readonly caller: Caller,
    readonly region: string,
    readonly accountId: string,
  ) {}

  async run<T>(operationId: string, build: () => Record<string, unknown>) {
    let input: Record<string, unknown> | undefined;
    let rejected: SvcError | undefined;
    let aws: AwsError | undefined;
    try {
      input = build();
    } catch (err) {
      if (err instanceof AwsError) aws = err;
      else if (!isSvcError(err)) throw err;
      rejected = aws ? new SvcError('InvalidField', aws.message) : (err as SvcError);
    }
    try {
      const result = await this.runner.run(operationId, input, this.caller, rejected);
      return { result: result as T, input: input ?? {} };
    } catch (err) {
      // An AWS-only refusal (IncorrectKeyException) is audited as the operation's bad input, answered as AWS's.
      if (aws && isSvcError(err) && err === rejected) throw aws;
      throw err;
    }
  }
}

export const awsCall = (runner: OperationRunner, caller: Caller, scope: ArnScope): AwsCall =>
  new RequestCall(runner, caller, scope.region, scope.accountId);
