/**
 * The one error the SDK throws. `code` is the service's error code (docs/errors.md) or, when no answer
 * came back, `NetworkError` or `Timeout` with status 0. `requestId` is the X-Request-Id of the call
 * (the SDK sends one, so even a call that never got an answer can be found in the service's logs).
 */
export class SvcApiError extends Error {
  override readonly name = 'SvcApiError';

  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly requestId: string,
  ) {
    super(message);
  }
}

export const isSvcApiError = (err: unknown): err is SvcApiError => err instanceof SvcApiError;
