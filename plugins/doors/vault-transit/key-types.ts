import { invalid } from './vault-errors.ts';

/** The service's key spec fields a transit key type stands for. */
export interface TypeSpec {
  algorithm: 'AES' | 'EC' | 'EdDSA' | 'RSA' | 'HMAC';
  sizeBits?: number;
  curve?: string;
}

/** The transit key types the door creates, as the service's specs. */
export const TRANSIT_TYPES: Record<string, TypeSpec> = {
  'aes256-gcm96': { algorithm: 'AES', sizeBits: 256 },
  'aes128-gcm96': { algorithm: 'AES', sizeBits: 128 },
  'ecdsa-p256': { algorithm: 'EC', curve: 'P-256' },
  'ecdsa-p384': { algorithm: 'EC', curve: 'P-384' },
  'ecdsa-p521': { algorithm: 'EC', curve: 'P-521' },
  ed25519: { algorithm: 'EdDSA', curve: 'Ed25519' },
  'rsa-2048': { algorithm: 'RSA', sizeBits: 2048 },
  'rsa-3072': { algorithm: 'RSA', sizeBits: 3072 },
  'rsa-4096': { algorithm: 'RSA', sizeBits: 4096 },
  hmac: { algorithm: 'HMAC', sizeBits: 256 },
};

// An HMAC key's size in bytes (Vault's key_size) to the service's HMAC sizes.
const HMAC_KEY_BYTES: Record<number, number> = { 32: 256, 48: 384, 64: 512 };

/** The spec a create asks for: `type` (default aes256-gcm96) and, for hmac, `key_size` in bytes. */
export function specOf(type: string | undefined, keySize: number | undefined): TypeSpec {
  const name = type ?? 'aes256-gcm96';
  const spec = Object.hasOwn(TRANSIT_TYPES, name) ? TRANSIT_TYPES[name] : undefined;
  if (!spec) throw invalid(`unknown key type ${name}; offered: ${Object.keys(TRANSIT_TYPES).join(', ')}`);
  if (keySize === undefined || keySize === 0) return spec;
  if (name !== 'hmac') throw invalid('key_size is only for hmac keys');
  const sizeBits = HMAC_KEY_BYTES[keySize];
  if (!sizeBits) throw invalid('key_size of an hmac key must be 32, 48 or 64 (bytes)');
  return { ...spec, sizeBits };
}

/** The transit type of a service key, or the service's own name for one transit has no type for (Ed448). */
export function typeOf(spec: { algorithm: string; sizeBits: number; curve?: string }): string {
  switch (spec.algorithm) {
    case 'AES':
      return `aes${spec.sizeBits}-gcm96`;
    case 'EC':
      return `ecdsa-${String(spec.curve).replace('P-', 'p').toLowerCase()}`;
    case 'EdDSA':
      return spec.curve === 'Ed25519' ? 'ed25519' : String(spec.curve).toLowerCase();
    case 'RSA':
      return `rsa-${spec.sizeBits}`;
    case 'HMAC':
      return 'hmac';
    default:
      return spec.algorithm.toLowerCase();
  }
}
