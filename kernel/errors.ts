/**
 * The one catalogue of error codes a client can see. Every error body is
 * `{error: code, message}`; docs/errors.md is written from this table.
 */
export const ERROR_CATALOGUE = {
  BadRequest: {
    status: 400,
    when:
      'malformed JSON, a body nested deeper than 64 levels, or a body failing ' +
      'its schema (missing field, wrong type)',
  },
  InvalidField: {
    status: 400,
    when: 'a well-formed field with a bad value (unknown enum, bad base64, out of range, blank)',
  },
  DecryptionFailed: { status: 400, when: 'decrypt or unwrap failed: wrong context, tampered or foreign ciphertext' },
  Unauthorized: { status: 401, when: 'missing or invalid credential, revoked token' },
  StepUpRequired: { status: 401, when: 'the risk decision asks for a stronger credential' },
  PermissionDenied: {
    status: 403,
    when: 'policy refusal, risk Deny (message prefix "risk: "), non-human on a human-only endpoint',
  },
  KeyNotFound: { status: 404, when: 'unknown key id (any id that is not a UUID included)' },
  NotFound: { status: 404, when: 'unknown route, or an unknown agent, alias or access key' },
  MethodNotAllowed: { status: 405, when: 'the route exists but not for this method' },
  RequestTimeout: {
    status: 408,
    when: 'the request headers or body did not arrive within http.headersTimeoutMs / http.requestTimeoutMs',
  },
  IllegalOperation: {
    status: 409,
    when:
      "the operation is not allowed in the key's state, or /v1/policy under policy.kind dev (it needs " +
      'role-based), or a new access key for a principal already holding 10',
  },
  PreconditionFailed: {
    status: 412,
    when:
      'a conditional change (PUT /v1/policy) whose If-Match is missing or names a version that is no ' +
      'longer the latest',
  },
  PayloadTooLarge: {
    status: 413,
    when: 'request body over http.maxBodyBytes, or a policy document over 1 MiB',
  },
  URITooLong: { status: 414, when: 'the request target is longer than 8192 characters' },
  UnsupportedMediaType: { status: 415, when: 'a body-carrying route called without Content-Type: application/json' },
  TooManyRequests: {
    status: 429,
    when:
      'the caller is over its rate limit (rateLimit.*; never for the kill ' +
      'switch and token revocation), or a long read that runs one at a time ' +
      'per node (an advisor scan, an audit verification) is already running ' +
      'there, or a caller holding 100 unspent import tokens asks for more; ' +
      'Retry-After says when to try again',
  },
  HeadersTooLarge: { status: 431, when: 'the request headers are larger than the HTTP parser accepts (16 KiB)' },
  InternalError: { status: 500, when: 'unexpected failure, including a failed write to the primary audit sink' },
  FeatureNotSupported: { status: 501, when: 'audit query, advisor or agent issuer not wired' },
  ServiceUnavailable: { status: 503, when: 'a backing store is unreachable; retry later' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** An error meant for the client: its message must never carry key material, plaintext or tokens. */
export class SvcError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** When to try again (sent as Retry-After, whole seconds), for ServiceUnavailable and TooManyRequests. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: { retryAfterSeconds?: number } = {}) {
    // Every door answers the message as it is (REST's body, MCP's structuredContent, KMIP's Result
    // Message): a blank one from a plugin (a policy's empty reason) would reach callers as nothing at all.
    super(message.trim() === '' ? `${code}: ${ERROR_CATALOGUE[code].when}` : message);
    this.name = 'SvcError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function isSvcError(err: unknown): err is SvcError {
  return err instanceof SvcError;
}

/** What every door answers for an error that is not the service's own: nothing of its internals. */
export const INTERNAL_ERROR_MESSAGE = 'internal error; the service log has details under this request id';

/** The error as a door answers it: a SvcError as it is, anything else the REST API's InternalError. */
export function asSvcError(err: unknown): SvcError {
  return isSvcError(err) ? err : new SvcError('InternalError', INTERNAL_ERROR_MESSAGE);
}
