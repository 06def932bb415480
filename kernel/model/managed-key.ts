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
  /** Where the first version's material came from: the service's generator, or a caller's import. */
  origin: 'generated' | 'imported';
  /** True while the key waits for a caller to import its material (made to receive it); absent otherwise. */
  awaitingMaterial?: boolean;
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
  /** False while the key is disabled (a reversible pause: no cryptographic call, no export). */
  enabled: boolean;
  /** When the key was last disabled, while it is; and why, when the caller said. */
  disabledAt?: string;
  disabledReason?: string;
  /** The key's tags (at most 50; key 1..128, value 0..256 characters). */
  tags: Record<string, string>;
  /** The sequence number of the last event folded in; the next append expects seq + 1. */
  seq: number;
}
