import { type ArnScope, keyArn } from './key-references.ts';
import { KEY_SPECS, awsKeySpecOf } from './key-specs.ts';

/** The fields of the service's key view (GET /v1/keys/{id}) that AWS's KeyMetadata is made from. */
export interface KeyView {
  id: string;
  spec: { algorithm: string; sizeBits: number; curve?: string };
  origin: 'generated' | 'imported';
  awaitingMaterial?: boolean;
  state: string;
  createdAt: string;
  enabled: boolean;
  destroyAt?: string;
  destroyedAt?: string;
  tags: Record<string, string>;
}

/** The tag that keeps a key's AWS Description (AWS has descriptions, the service has tags). */
export const DESCRIPTION_TAG = 'aws:description';

const seconds = (iso: string) => Date.parse(iso) / 1000;

/**
 * AWS's KeyState of a key: PendingDeletion while a destruction is scheduled, PendingImport while it
 * awaits imported material, Enabled when it is Active
 * and enabled, Disabled otherwise. A Deactivated (revoked) or Compromised key reads Disabled: it still
 * decrypts and verifies what it made, but no EnableKey makes it encrypt or sign again.
 */
export function awsKeyState(key: KeyView): string {
  if (key.destroyAt) return 'PendingDeletion';
  if (key.awaitingMaterial) return 'PendingImport';
  return key.state === 'Active' && key.enabled ? 'Enabled' : 'Disabled';
}

export function keyMetadata(scope: ArnScope, key: KeyView): Record<string, unknown> {
  const keySpec = awsKeySpecOf(key.spec);
  const entry = keySpec ? KEY_SPECS[keySpec] : undefined;
  const state = awsKeyState(key);
  return {
    AWSAccountId: scope.accountId,
    KeyId: key.id,
    Arn: keyArn(scope, key.id),
    CreationDate: seconds(key.createdAt),
    Enabled: state === 'Enabled',
    Description: key.tags[DESCRIPTION_TAG] ?? '',
    KeyUsage: entry?.usage ?? 'SIGN_VERIFY',
    KeyState: state,
    ...(key.destroyAt ? { DeletionDate: seconds(key.destroyAt) } : {}),
    Origin: key.origin === 'imported' ? 'EXTERNAL' : 'AWS_KMS',
    ...(key.origin === 'imported' ? { ExpirationModel: 'KEY_MATERIAL_DOES_NOT_EXPIRE' } : {}),
    KeyManager: 'CUSTOMER',
    CustomerMasterKeySpec: keySpec ?? key.spec.algorithm,
    KeySpec: keySpec ?? key.spec.algorithm,
    ...(entry?.usage === 'ENCRYPT_DECRYPT' ? { EncryptionAlgorithms: ['SYMMETRIC_DEFAULT'] } : {}),
    ...(entry?.signing ? { SigningAlgorithms: Object.keys(entry.signing) } : {}),
    ...(entry?.mac ? { MacAlgorithms: Object.keys(entry.mac) } : {}),
    MultiRegion: false,
  };
}
