import { isSvcError } from '../../../kernel/index.ts';

/** An answer in Vault's error shape, `{"errors": [message]}`, with Vault's HTTP status. */
export class VaultError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'VaultError';
  }
}

/** A refusal of the caller's input, as Vault answers it (400). */
export const invalid = (message: string) => new VaultError(400, message);

/**
 * Vault's status for a refusal of the service's pipeline; the message is the service's own (the words a
 * REST caller reads). Vault answers 403 for any credential problem and 400 for a call its key's state or
 * type refuses; a key that does not exist is 404 when the path reads or deletes the key itself and 400
 * when a crypto path names it, as Vault's ("encryption key not found").
 */
export function vaultErrorOf(err: unknown, keyPath: boolean): VaultError {
  if (err instanceof VaultError) return err;
  if (!isSvcError(err)) return new VaultError(500, 'internal error; the service log has details under this request id');
  switch (err.code) {
    case 'KeyNotFound':
    case 'NotFound':
      return new VaultError(keyPath ? 404 : 400, err.message);
    case 'Unauthorized':
    case 'PermissionDenied':
    case 'StepUpRequired':
      return new VaultError(403, `permission denied: ${err.message}`);
    case 'BadRequest':
    case 'InvalidField':
    case 'DecryptionFailed':
    case 'IllegalOperation':
    case 'PreconditionFailed':
    case 'FeatureNotSupported':
    case 'UnsupportedMediaType':
      return new VaultError(400, err.message);
    case 'MethodNotAllowed':
      return new VaultError(405, err.message);
    default:
      return new VaultError(err.status, err.message);
  }
}
