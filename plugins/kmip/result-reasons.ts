import { isSvcError, type ErrorCode } from '../../kernel/index.ts';
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

/** A refusal the door itself makes in KMIP terms (an operation it does not offer, a payload it cannot read). */
export class KmipRefusal extends Error {
  constructor(readonly reason: number, message: string) {
    super(message);
  }
}

/** Result Reason and Result Message of a failed batch item: the REST error's message, never internals. */
export function failureOf(err: unknown): { reason: number; message: string } {
  if (err instanceof KmipRefusal) return { reason: err.reason, message: err.message };
  if (isSvcError(err)) return { reason: REASONS[err.code] ?? R.GeneralFailure, message: err.message };
  return { reason: R.GeneralFailure, message: 'internal error; the service log has details' };
}
