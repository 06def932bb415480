import type { KeySpec } from './key-spec.ts';

/**
 * The journal's events. They carry metadata only: key material lives in the material store under a
 * random materialId that the event names, so a writer that loses a race leaves only an orphan row and
 * can never replace the material of a committed version.
 */
export type KeyEvent =
  // owner: who the key belongs to (the creator, or an agent's parent); absent in 0.1 events, where `by` is it.
  // origin: 'imported' when the first version's material came from the caller (absent: the service generated it).
  | {
      type: 'KeyCreated';
      at: string;
      spec: KeySpec;
      by: string;
      materialId: string;
      owner?: string;
      tenant?: string;
      origin?: 'imported';
      // A key made to receive imported material later: it has no material (materialId '') until
      // MaterialImported, and cannot be activated before.
      awaitingMaterial?: true;
    }
  | { type: 'KeyActivated'; at: string; by: string }
  // The material a caller imported into a key that awaited it: it becomes version 1.
  | { type: 'MaterialImported'; at: string; by: string; materialId: string }
  | { type: 'Rotated'; at: string; by: string; newVersion: number; materialId: string; policy: string; reason?: string }
  | { type: 'Revoked'; at: string; by: string; reason?: string }
  | { type: 'Compromised'; at: string; by: string; reason: string }
  | { type: 'Destroyed'; at: string; by: string }
  // A destroy with a waiting period: the key keeps its state but serves no cryptographic call until
  // `destroyAt`, when the service destroys it; DestroyCancelled (Humans only) clears it.
  | { type: 'DestroyScheduled'; at: string; by: string; destroyAt: string }
  | { type: 'DestroyCancelled'; at: string; by: string }
  // Every version below minVersion is erased for good (its material deleted with this event).
  | { type: 'VersionsTrimmed'; at: string; by: string; minVersion: number }
  // A reversible pause beside the lifecycle state: a disabled key serves no cryptographic call or export
  // until a Human enables it again; its state, versions and schedule are untouched.
  | { type: 'KeyDisabled'; at: string; by: string; reason?: string }
  | { type: 'KeyEnabled'; at: string; by: string }
  // Tags set (merged over the current ones) and tag keys removed, in one change.
  | { type: 'TagsChanged'; at: string; by: string; set?: Record<string, string>; removed?: string[] };

export interface StoredEvent {
  keyId: string;
  seq: number;
  event: KeyEvent;
}
