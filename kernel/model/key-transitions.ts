import type { KeyEvent } from './key-event.ts';
import type { KeyState } from './managed-key.ts';

// The lifecycle's rules as plain data: the key service enforces them, and the web console offers only
// the actions they allow (it bundles this module, so it holds constants and types only).

export type KeyTransition = Exclude<KeyEvent['type'], 'KeyCreated'>;

/** Source states of each transition. */
export const TRANSITION_SOURCES: Readonly<Record<KeyTransition, readonly KeyState[]>> = {
  KeyActivated: ['PreActive'],
  MaterialImported: ['PreActive'],
  Rotated: ['Active'],
  Revoked: ['Active'],
  Compromised: ['PreActive', 'Active', 'Deactivated'],
  Destroyed: ['PreActive', 'Deactivated', 'Compromised'],
  DestroyScheduled: ['PreActive', 'Deactivated', 'Compromised'],
  DestroyCancelled: ['PreActive', 'Deactivated', 'Compromised'],
  VersionsTrimmed: ['PreActive', 'Active', 'Deactivated', 'Compromised'],
  KeyDisabled: ['PreActive', 'Active', 'Deactivated', 'Compromised'],
  KeyEnabled: ['PreActive', 'Active', 'Deactivated', 'Compromised'],
  TagsChanged: ['PreActive', 'Active', 'Deactivated', 'Compromised'],
};

/**
 * What a key scheduled for destruction may still go through: being marked compromised (it only narrows
 * what the key may do), the cancel, the destruction itself, and the flag and tag changes that never
 * make it serve. Anything else would let the key serve
 * again, or erase part of it, before the waiting period is over.
 */
export const WHILE_SCHEDULED: readonly KeyTransition[] = [
  'Compromised',
  'DestroyCancelled',
  'Destroyed',
  // None of these lets the key serve: a scheduled key serves nothing whether enabled or not.
  'KeyDisabled',
  'KeyEnabled',
  'TagsChanged',
];

/**
 * The states in which a key produces new output (encrypt, sign, wrap) and consumes earlier output
 * (decrypt, verify, unwrap); a key scheduled for destruction does neither.
 */
export const USABLE_STATES: Readonly<Record<'produce' | 'consume', readonly KeyState[]>> = {
  produce: ['Active'],
  consume: ['Active', 'Deactivated'],
};
