import { type Caller, isSvcError, type OperationRunner, type Principal, SvcError } from '../../../kernel/index.ts';
import { VaultError } from './vault-errors.ts';

/** One transit request's way into the service: its caller, and the operations it runs for it. */
export class VaultCall {
  /**
   * `keyRef`: the alias the request's path names, when it names one; a refused input is refused on that
   * key, so policy that grants a caller its own keys authorizes (and audits) the refusal as usual.
   */
  constructor(
    private readonly runner: OperationRunner,
    private readonly caller: Caller,
    private readonly keyRef?: string,
  ) {}

  /** Who the request is from. */
  get principal(): Principal {
    return this.caller.principal;
  }

  /**
   * Runs one of the service's operations through the one pipeline. `build` makes its input from the
   * transit request and may refuse it: the refusal is then the operation's, authorized and audited
   * like any other (a transit 400 is the operation's InvalidField).
   */
  async run<T = Record<string, unknown>>(operationId: string, build: () => Record<string, unknown>): Promise<T> {
    let input: Record<string, unknown> | undefined;
    let rejected: SvcError | undefined;
    try {
      input = build();
    } catch (err) {
      if (err instanceof VaultError && err.status === 400) rejected = new SvcError('InvalidField', err.message);
      else if (isSvcError(err)) rejected = err;
      else throw err;
      if (this.keyRef !== undefined) input = { id: this.keyRef };
    }
    return (await this.runner.run(operationId, input, this.caller, rejected)) as T;
  }

  /** Refuses the request as `operationId`'s bad input: authorized and audited, then thrown. */
  async refuse(operationId: string, error: unknown): Promise<never> {
    await this.run(operationId, () => {
      throw error;
    });
    throw error;
  }
}
