import type { Principal } from '../model/index.ts';
import { createPortRef } from './port-ref.ts';

/** The parts of a request an authenticator may read; it never sees the body. */
export interface CredentialSource {
  header(name: string): string | undefined;
}

/**
 * Turns a request's credential into a Principal, or throws SvcError('Unauthorized', ...) with a message
 * that names what was wrong but never echoes the credential itself.
 */
export interface Authenticator {
  authenticate(request: CredentialSource): Promise<Principal>;
  /** The OAuth authorization server whose tokens it accepts (an OIDC issuer), for doors that advertise it. */
  readonly issuer?: string;
}

export const authenticatorPort = createPortRef<Authenticator>('authenticator');
