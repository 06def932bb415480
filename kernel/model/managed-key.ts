import type { KeySpec } from './key-spec.ts';

export const KEY_STATES = ['PreActive', 'Active', 'Deactivated', 'Compromised', 'Destroyed'] as const;
export type KeyState = (typeof KEY_STATES)[number];

/** The current state of one key, folded from its journal events. */
export interface ManagedKey {
  id: string;
  spec: KeySpec;
  /** The creating principal's subject (an agent's parent for agents); role-based `owner:self` matches it. */
  owner: string;
  /** The tenant of the Service that created it, when it had one. */
  tenant?: string;
  state: KeyState;
  currentVersion: number;
  createdAt: string;
  activatedAt?: string;
  rotatedAt?: string;
  revokedAt?: string;
  compromisedAt?: string;
  destroyedAt?: string;
  reason?: string;
  rotationPolicy: string;
  /** When a scheduled destruction will destroy the key; absent when none is scheduled. */
  destroyAt?: string;
  /** The lowest version whose material still exists; versions below it were trimmed. Absent: 1. */
  minVersion?: number;
  /** Each version's creation time and material; TimeBased rotation measures from the current one. */
  versions: Record<number, { createdAt: string; materialId: string }>;
  /** The sequence number of the last event folded in; the next append expects seq + 1. */
  seq: number;
}
