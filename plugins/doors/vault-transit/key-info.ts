import { createPublicKey } from 'node:crypto';
import type { VaultCall } from './vault-call.ts';
import { typeOf } from './key-types.ts';

/** The fields of the service's key (GetKey) the transit door reads. */
export interface KeyView {
  id: string;
  owner: string;
  tenant?: string;
  state: string;
  enabled: boolean;
  currentVersion: number;
  minVersion?: number;
  createdAt: string;
  rotatedAt?: string;
  destroyAt?: string;
  spec: { name: string; algorithm: string; sizeBits: number; curve?: string; exportable: boolean };
  tags: Record<string, string>;
}

/** The tag that holds transit's deletion_allowed (a key is deleted over transit only when it is "true"). */
export const DELETION_ALLOWED_TAG = 'vault:deletion_allowed';

const ASYMMETRIC = new Set(['RSA', 'EC', 'EdDSA']);
const seconds = (iso: string | undefined) => (iso ? Math.floor(Date.parse(iso) / 1000) : 0);

/** The key as transit's read answers it; `publicKeys` by version for an asymmetric key that serves. */
export function keyInfo(name: string, key: KeyView, publicKeys?: Map<number, string>): Record<string, unknown> {
  const floor = key.minVersion ?? 1;
  const asymmetric = ASYMMETRIC.has(key.spec.algorithm);
  const keys: Record<string, unknown> = {};
  for (let version = floor; version <= key.currentVersion; version++) {
    // The service keeps the creation time and the latest rotation's: version 1 reads the one, later ones the other.
    const time = version === 1 ? key.createdAt : (key.rotatedAt ?? key.createdAt);
    keys[String(version)] = asymmetric
      ? {
          creation_time: time,
          name: key.spec.curve ?? `rsa-${key.spec.sizeBits}`,
          public_key: publicKeys?.get(version) ?? '',
        }
      : seconds(time);
  }
  const encrypts = key.spec.algorithm === 'AES';
  return {
    name,
    type: typeOf(key.spec),
    keys,
    latest_version: key.currentVersion,
    min_available_version: key.minVersion ?? 0,
    min_decryption_version: floor,
    min_encryption_version: 0,
    deletion_allowed: key.tags[DELETION_ALLOWED_TAG] === 'true',
    exportable: key.spec.exportable,
    allow_plaintext_backup: false,
    derived: false,
    supports_encryption: encrypts,
    supports_decryption: encrypts,
    supports_derivation: false,
    supports_signing: asymmetric,
    imported_key: false,
    auto_rotate_period: 0,
    // Not Vault's: the service's own view, for a reader who wants to know why a call is refused.
    'svc.key_id': key.id,
    'svc.state': key.state,
    'svc.enabled': key.enabled,
  };
}

/**
 * Each version's public key as transit shows it (PEM; base64 of the raw key for Ed25519), read with the
 * key's JWKS in one call. None for a symmetric key, or one that serves no call (disabled, scheduled,
 * Destroyed: GetKeyJwks refuses those).
 */
export async function publicKeysOf(call: VaultCall, key: KeyView): Promise<Map<number, string> | undefined> {
  if (!ASYMMETRIC.has(key.spec.algorithm) || !key.enabled || key.destroyAt || key.state === 'Destroyed')
    return undefined;
  const { keys } = await call.run<{ keys: Array<Record<string, unknown>> }>('GetKeyJwks', () => ({ id: key.id }));
  const byVersion = new Map<number, string>();
  for (const jwk of keys) {
    const version = Number(String(jwk.kid).split(':').at(-1));
    const { kid: _kid, use: _use, alg: _alg, ...material } = jwk;
    byVersion.set(
      version,
      jwk.kty === 'OKP'
        ? Buffer.from(String(jwk.x), 'base64url').toString('base64')
        : String(createPublicKey({ key: material as never, format: 'jwk' }).export({ format: 'pem', type: 'spki' })),
    );
  }
  return byVersion;
}
