import { type KeyTransition, type ManagedKey, TRANSITION_SOURCES, USABLE_STATES, WHILE_SCHEDULED } from './types.ts';

/** What the key page may offer: lifecycle actions, using the key, and showing its public key. */
export type KeyAction =
  | 'activate'
  | 'rotate'
  | 'revoke'
  | 'compromise'
  | 'destroy'
  | 'cancelDestroy'
  | 'produce'
  | 'consume'
  | 'publicKey';

const TRANSITION: Record<Exclude<KeyAction, 'produce' | 'consume' | 'publicKey'>, KeyTransition> = {
  activate: 'KeyActivated',
  rotate: 'Rotated',
  revoke: 'Revoked',
  compromise: 'Compromised',
  destroy: 'Destroyed',
  cancelDestroy: 'DestroyCancelled',
};

/**
 * The actions the key's state allows, from the service's own lifecycle table (kernel/model), so a
 * button is never offered only to be refused with IllegalOperation: activate from PreActive, rotate and
 * revoke from Active, compromise from PreActive, Active and Deactivated, destroy from PreActive,
 * Deactivated and Compromised; encrypt and sign on an Active key, decrypt and verify on an Active or
 * Deactivated one; nothing but reading on a Destroyed key. A key waiting for its scheduled destruction
 * may only be compromised, destroyed at once, or spared (cancel), and serves no cryptographic call.
 * The policy may still refuse what the state allows: the page shows that refusal as the API words it.
 */
export function allowedActions(key: Pick<ManagedKey, 'state' | 'destroyAt' | 'spec'>): Set<KeyAction> {
  const scheduled = key.destroyAt !== undefined;
  const allowed = new Set<KeyAction>();
  for (const [action, transition] of Object.entries(TRANSITION) as Array<[KeyAction, KeyTransition]>) {
    if (!TRANSITION_SOURCES[transition].includes(key.state)) continue;
    if (scheduled ? !WHILE_SCHEDULED.includes(transition) : transition === 'DestroyCancelled') continue;
    allowed.add(action);
  }
  if (!scheduled) {
    if (USABLE_STATES.produce.includes(key.state)) allowed.add('produce');
    if (USABLE_STATES.consume.includes(key.state)) allowed.add('consume');
    if (key.state !== 'Destroyed' && key.spec.objectType === 'PrivateKey') allowed.add('publicKey');
  }
  return allowed;
}
