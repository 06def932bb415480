export const KEY_ALGORITHMS = ['AES', 'RSA', 'EC', 'EdDSA', 'HMAC', 'ML-DSA', 'SLH-DSA'] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

export const EC_CURVES = ['P-256', 'P-384', 'P-521', 'secp256k1'] as const;
export const ED_CURVES = ['Ed25519', 'Ed448'] as const;
export type Curve = (typeof EC_CURVES)[number] | (typeof ED_CURVES)[number];

/** The post-quantum signature parameter sets (FIPS 204 ML-DSA, FIPS 205 SLH-DSA), as node:crypto names them uppercased. */
export const ML_DSA_SETS = ['ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87'] as const;
export const SLH_DSA_SETS = [
  'SLH-DSA-SHA2-128s',
  'SLH-DSA-SHA2-128f',
  'SLH-DSA-SHA2-192s',
  'SLH-DSA-SHA2-192f',
  'SLH-DSA-SHA2-256s',
  'SLH-DSA-SHA2-256f',
  'SLH-DSA-SHAKE-128s',
  'SLH-DSA-SHAKE-128f',
  'SLH-DSA-SHAKE-192s',
  'SLH-DSA-SHAKE-192f',
  'SLH-DSA-SHAKE-256s',
  'SLH-DSA-SHAKE-256f',
] as const;
export const PARAMETER_SETS = [...ML_DSA_SETS, ...SLH_DSA_SETS] as const;
export type ParameterSet = (typeof PARAMETER_SETS)[number];

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
  // A post-quantum key signs with its own parameter set, by that name.
  ...PARAMETER_SETS,
] as const;
export type SignatureAlgorithm = (typeof SIGNATURE_ALGORITHMS)[number];

/** A key's specification as normalised by the service: every field filled in. */
export interface KeySpec {
  name: string;
  algorithm: KeyAlgorithm;
  sizeBits: number;
  curve?: Curve;
  /** ML-DSA and SLH-DSA: the parameter set (`ML-DSA-65`, `SLH-DSA-SHA2-128s`...); sizeBits is its security strength. */
  parameterSet?: ParameterSet;
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
