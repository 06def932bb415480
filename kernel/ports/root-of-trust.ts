import type { Lifecycle } from './lifecycle.ts';
import { createPortRef } from './port-ref.ts';

/**
 * Holds the key-encryption key (KEK) under which all key material is stored. `wrap` binds `aad` (the
 * key id and version) so that a blob moved to another key or version does not unwrap. `unwrap` throws on
 * any tampering. Implementations never log or return the KEK.
 */
export interface RootOfTrust extends Lifecycle {
  readonly name: string;
  wrap(material: Buffer, aad: string): Promise<Buffer>;
  unwrap(wrapped: Buffer, aad: string): Promise<Buffer>;
}

export const rootOfTrustPort = createPortRef<RootOfTrust>('rootOfTrust');
