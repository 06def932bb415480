import { SvcError } from '../../../kernel/index.ts';

/** A setting that does not fit the token: the boot stops with this message, which names the setting. */
export class Pkcs11SetupError extends Error {
  constructor(
    message: string,
    /** Logging in with the PIN was refused: trying again could lock the token. */
    readonly pinRefused = false,
  ) {
    super(message);
  }
}

/** The PKCS#11 return value's name (CKR_...) of an error from pkcs11js, or undefined for any other error. */
export const ckr = (err: unknown): string | undefined => {
  const message = (err as Error | undefined)?.message;
  return typeof message === 'string' && /^CKR_[A-Z0-9_]+$/.test(message) ? message : undefined;
};

/**
 * Return values that mean the token, the session or the login went away (device pulled, HSM restarted,
 * network partition to a network HSM, token directory gone): the token is re-connected and the call
 * answers 503. CKR_GENERAL_ERROR and CKR_FUNCTION_FAILED are not here: SoftHSM2 also answers them for a
 * blob that fails its integrity check, so those are told apart by asking the token whether it is well.
 */
export const TOKEN_GONE = new Set([
  'CKR_SESSION_HANDLE_INVALID',
  'CKR_SESSION_CLOSED',
  'CKR_TOKEN_NOT_PRESENT',
  'CKR_TOKEN_NOT_RECOGNIZED',
  'CKR_DEVICE_REMOVED',
  'CKR_DEVICE_ERROR',
  'CKR_DEVICE_MEMORY',
  'CKR_USER_NOT_LOGGED_IN',
  'CKR_CRYPTOKI_NOT_INITIALIZED',
  'CKR_SLOT_ID_INVALID',
  'CKR_OBJECT_HANDLE_INVALID',
  'CKR_KEY_HANDLE_INVALID',
  'CKR_WRAPPING_KEY_HANDLE_INVALID',
  'CKR_UNWRAPPING_KEY_HANDLE_INVALID',
  'CKR_HOST_MEMORY',
]);

/** Return values that may be either a token in trouble or a bad input. */
export const AMBIGUOUS = new Set(['CKR_GENERAL_ERROR', 'CKR_FUNCTION_FAILED']);

/** Login refusals that a retry with the same PIN cannot cure (and that count towards locking the token). */
export const PIN_REFUSED = new Set([
  'CKR_PIN_INCORRECT',
  'CKR_PIN_INVALID',
  'CKR_PIN_LEN_RANGE',
  'CKR_PIN_LOCKED',
  'CKR_PIN_EXPIRED',
]);

export const tokenUnavailable = (why: string, retryAfterSeconds = 5): SvcError =>
  new SvcError('ServiceUnavailable', `the HSM token cannot be used now (${why}); retry later`, { retryAfterSeconds });
