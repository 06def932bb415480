import { isSvcError } from '../../../kernel/index.ts';
import { SigV4Refusal } from './sigv4.ts';

/** An answer in AWS's error shape: `{"__type": EXCEPTION, "message": ...}` with AWS's HTTP status. */
export class AwsError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = 'AwsError';
  }
}

/**
 * The service's refusals of a key whose type does not fit the call: an RSA or HMAC key asked to encrypt
 * (key-crypto.ts), an AES key asked to sign, an algorithm of another key type (signatures.ts). AWS
 * answers these InvalidKeyUsageException (the KeyUsage or KeySpec of the key does not fit the operation
 * or the algorithm), not ValidationException: SDK users catch it by that name.
 */
const KEY_USAGE = /\bneeds an AES key\b|\bkeys do not sign\b|\bdoes not fit an? [A-Za-z]+ [\w-]+ key$/;

/**
 * The AWS exception for a refusal of the service's pipeline. The message is the service's own (the
 * same words a REST caller reads); only the name is AWS's.
 */
export function awsErrorOf(err: unknown): AwsError {
  if (err instanceof AwsError) return err;
  if (err instanceof SigV4Refusal)
    return new AwsError(err.type, err.message, err.type.startsWith('Missing') ? 403 : 400);
  if (!isSvcError(err))
    return new AwsError(
      'KMSInternalException',
      'internal error; the service log has details under this request id',
      500,
    );
  const message = err.message;
  switch (err.code) {
    case 'KeyNotFound':
    case 'NotFound':
      return new AwsError('NotFoundException', message);
    case 'InvalidField':
      return new AwsError(KEY_USAGE.test(message) ? 'InvalidKeyUsageException' : 'ValidationException', message);
    case 'BadRequest':
    case 'PayloadTooLarge':
      return new AwsError('ValidationException', message);
    case 'DecryptionFailed':
      return new AwsError('InvalidCiphertextException', message);
    case 'Unauthorized':
      return new AwsError('UnrecognizedClientException', message);
    case 'PermissionDenied':
    case 'StepUpRequired':
      return new AwsError('AccessDeniedException', message);
    case 'IllegalOperation':
      // A disabled key is a state of its own in AWS's vocabulary; every other refused state is the key's state.
      return new AwsError(/\bdisabled\b/.test(message) ? 'DisabledException' : 'KMSInvalidStateException', message);
    case 'TooManyRequests':
      return new AwsError('ThrottlingException', message);
    case 'FeatureNotSupported':
      return new AwsError('UnsupportedOperationException', message);
    case 'ServiceUnavailable':
      return new AwsError('DependencyTimeoutException', message, 503);
    default:
      return new AwsError('KMSInternalException', message, 500);
  }
}
