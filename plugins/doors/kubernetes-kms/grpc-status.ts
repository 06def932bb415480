import { type ErrorCode, INTERNAL_ERROR_MESSAGE, isSvcError } from '../../../kernel/index.ts';

/**
 * gRPC's status codes (grpc/doc/statuscodes.md), the ones this plugin answers: numbers on the wire, named
 * here so that the plugin's manifest and mapping load without @grpc/grpc-js (loaded when the plugin starts).
 */
export const GRPC = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** What a handler answers for a failed call: a gRPC status code and a message for kube-apiserver's log. */
export interface GrpcFailure {
  code: number;
  details: string;
}

const BY_CODE: Partial<Record<ErrorCode, number>> = {
  BadRequest: GRPC.INVALID_ARGUMENT,
  InvalidField: GRPC.INVALID_ARGUMENT,
  DecryptionFailed: GRPC.INVALID_ARGUMENT,
  PayloadTooLarge: GRPC.RESOURCE_EXHAUSTED,
  Unauthorized: GRPC.UNAUTHENTICATED,
  StepUpRequired: GRPC.PERMISSION_DENIED,
  PermissionDenied: GRPC.PERMISSION_DENIED,
  KeyNotFound: GRPC.NOT_FOUND,
  NotFound: GRPC.NOT_FOUND,
  // A disabled, deactivated, compromised or destroyed key: the key's state refuses the call until someone changes it.
  IllegalOperation: GRPC.FAILED_PRECONDITION,
  PreconditionFailed: GRPC.FAILED_PRECONDITION,
  TooManyRequests: GRPC.RESOURCE_EXHAUSTED,
  FeatureNotSupported: GRPC.UNIMPLEMENTED,
  RequestTimeout: GRPC.UNAVAILABLE,
  ServiceUnavailable: GRPC.UNAVAILABLE,
};

/**
 * The gRPC answer to a refusal or failure: the service's error code as its gRPC counterpart, with the
 * message a REST caller reads after that code (`PermissionDenied: ...`); anything that is not the service's
 * own error is INTERNAL with no detail of it (the log has it, under the call's request id).
 */
export function grpcFailureOf(err: unknown, requestId: string): GrpcFailure {
  if (!isSvcError(err)) return { code: GRPC.INTERNAL, details: `${INTERNAL_ERROR_MESSAGE} (${requestId})` };
  return { code: BY_CODE[err.code] ?? GRPC.INTERNAL, details: `${err.code}: ${err.message}` };
}
