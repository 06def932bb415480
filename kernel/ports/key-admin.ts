import type { ManagedKey } from '../model/index.ts';
import { createPortRef } from './port-ref.ts';

/**
 * What actors below the audit layer (the auto-responder) may do to keys. Calls through here are not
 * audited by the guard: the caller writes its own audit record as svc-system.
 */
export interface KeyAdmin {
  get(keyId: string): Promise<ManagedKey>;
  /** Active -> Deactivated; throws SvcError (KeyNotFound, IllegalOperation) otherwise. */
  revoke(keyId: string, by: string, reason: string): Promise<void>;
}

export const keyAdminPort = createPortRef<KeyAdmin>('keyAdmin');
