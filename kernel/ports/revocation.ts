import type { Lifecycle } from './lifecycle.ts';
import { createPortRef } from './port-ref.ts';

/**
 * The token revocation list, by jti. Consulted only after a token's signature and claims pass.
 * `expiresAt` (epoch seconds) lets a backend forget an entry once the token could no longer be used anyway.
 * A backend that cannot be reached answers "not revoked" and logs a warning (fail open: an outage of the list must not
 * stop every caller).
 */
export interface RevocationList extends Lifecycle {
  revoke(jti: string, expiresAt: number | undefined): Promise<void>;
  isRevoked(jti: string): Promise<boolean>;
}

export const revocationPort = createPortRef<RevocationList>('revocation');
