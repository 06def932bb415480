export const KEY_ALGORITHMS = ['AES', 'RSA', 'EC', 'EdDSA', 'HMAC'] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

export const EC_CURVES = ['P-256', 'P-384', 'P-521', 'secp256k1'] as const;
export const ED_CURVES = ['Ed25519', 'Ed448'] as const;
export type Curve = (typeof EC_CURVES)[number] | (typeof ED_CURVES)[number];

export const OBJECT_TYPES = ['SymmetricKey', 'PrivateKey'] as const;
export type ObjectType = (typeof OBJECT_TYPES)[number];

/** The signature algorithms sign and verify accept; each key family allows its own subset. */
export const SIGNATURE_ALGORITHMS = [
  'RsaPssSha256',
  'RsaPssSha384',
  'RsaPssSha512',
  'RsaPkcs1Sha256',
  'RsaPkcs1Sha384',
  'RsaPkcs1Sha512',
  'EcdsaSha256',
  'EcdsaSha384',
  'EcdsaSha512',
  'Ed25519',
  'Ed448',
  'HmacSha256',
  'HmacSha384',
  'HmacSha512',
] as const;
export type SignatureAlgorithm = (typeof SIGNATURE_ALGORITHMS)[number];

/** A key's specification as normalised by the service: every field filled in. */
export interface KeySpec {
  name: string;
  algorithm: KeyAlgorithm;
  sizeBits: number;
  curve?: Curve;
  objectType: ObjectType;
  /**
   * Whether the material may leave the service through export; fixed at creation (false for keys made before it
   * existed).
   */
  exportable: boolean;
  /** Tags given at creation (the key's current tags are ManagedKey.tags; this keeps what creation said). */
  tags?: Record<string, string>;
}

export function isSymmetric(spec: KeySpec): boolean {
  return spec.algorithm === 'AES' || spec.algorithm === 'HMAC';
}
