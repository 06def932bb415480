import { asSvcError, SvcError, type ErrorCode } from '../../../kernel/index.ts';
import { K } from './ttlv/index.ts';

const R = K.ResultReason;

/** The KMIP Result Reason of each REST error code; anything not listed is General Failure. */
const REASONS: Partial<Record<ErrorCode, number>> = {
  PermissionDenied: R.PermissionDenied,
  Unauthorized: R.AuthenticationNotSuccessful,
  KeyNotFound: R.ItemNotFound,
  IllegalOperation: R.WrongKeyLifecycleState,
  InvalidField: R.InvalidField,
  BadRequest: R.InvalidMessage,
  DecryptionFailed: R.CryptographicFailure,
  StepUpRequired: R.OperationCanceledByRequester,
};

/**
 * A request the door cannot translate for a reason KMIP names more precisely than REST can (a Key Format
 * Type it does not serve). It is an InvalidField like any untranslatable field: handed to the pipeline as
 * the call's refusal, so it is authorized, audited and answered with the message the record holds; only
 * its Result Reason is KMIP's own.
 */
export class KmipRejection extends SvcError {
  constructor(
    readonly reason: number,
    message: string,
  ) {
    super('InvalidField', message);
  }
}

/**
 * Result Reason and Result Message of a failed batch item: the message every door answers for the error
 * (asSvcError: a SvcError's own, never blank; anything else the REST API's InternalError), never internals.
 */
export function failureOf(err: unknown): { reason: number; message: string } {
  const error = asSvcError(err);
  return {
    reason: error instanceof KmipRejection ? error.reason : (REASONS[error.code] ?? R.GeneralFailure),
    message: error.message,
  };
}
