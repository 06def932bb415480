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
  | 'publicKey'
  | 'disable'
  | 'enable'
  | 'tag'
  | 'alias';

const TRANSITION: Record<Exclude<KeyAction, 'produce' | 'consume' | 'publicKey' | 'alias'>, KeyTransition> = {
  activate: 'KeyActivated',
  rotate: 'Rotated',
  revoke: 'Revoked',
  compromise: 'Compromised',
  destroy: 'Destroyed',
  cancelDestroy: 'DestroyCancelled',
  disable: 'KeyDisabled',
  enable: 'KeyEnabled',
  tag: 'TagsChanged',
};

/**
 * The actions the key's state allows, from the service's own lifecycle table (kernel/model), so a
 * button is never offered only to be refused with IllegalOperation: activate from PreActive, rotate and
 * revoke from Active, compromise from PreActive, Active and Deactivated, destroy from PreActive,
 * Deactivated and Compromised; encrypt and sign on an Active key, decrypt and verify on an Active or
 * Deactivated one; nothing but reading on a Destroyed key. A key waiting for its scheduled destruction
 * may only be compromised, destroyed at once, or spared (cancel), and serves no cryptographic call.
 * Beside the state: a key that is not Destroyed may be tagged, named by aliases and disabled (when
 * enabled) or enabled (when disabled); a disabled key serves no cryptographic call and no public key.
 * The policy may still refuse what the state allows: the page shows that refusal as the API words it.
 */
export function allowedActions(key: Pick<ManagedKey, 'state' | 'destroyAt' | 'spec' | 'enabled'>): Set<KeyAction> {
  const scheduled = key.destroyAt !== undefined;
  const allowed = new Set<KeyAction>();
  for (const [action, transition] of Object.entries(TRANSITION) as Array<[KeyAction, KeyTransition]>) {
    if (!TRANSITION_SOURCES[transition].includes(key.state)) continue;
    if (scheduled ? !WHILE_SCHEDULED.includes(transition) : transition === 'DestroyCancelled') continue;
    allowed.add(action);
  }
  // Disabling a disabled key (or enabling an enabled one) changes nothing: only the toggle's other side.
  allowed.delete(key.enabled ? 'enable' : 'disable');
  // A Destroyed key takes no alias and loses its own.
  if (key.state !== 'Destroyed') allowed.add('alias');
  if (!key.enabled) return allowed;
  if (!scheduled) {
    if (USABLE_STATES.produce.includes(key.state)) allowed.add('produce');
    if (USABLE_STATES.consume.includes(key.state)) allowed.add('consume');
    if (key.state !== 'Destroyed' && key.spec.objectType === 'PrivateKey') allowed.add('publicKey');
  }
  return allowed;
}
