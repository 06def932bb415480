export const KEY_ALGORITHMS = ['AES', 'RSA', 'EC', 'EdDSA', 'HMAC'] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

export const EC_CURVES = ['P-256', 'P-384', 'P-521', 'secp256k1'] as const;
export const ED_CURVES = ['Ed25519', 'Ed448'] as const;
export type Curve = (typeof EC_CURVES)[number] | (typeof ED_CURVES)[number];

export type ObjectType = 'SymmetricKey' | 'PrivateKey';

/** A key's specification as normalised by the service: every field filled in (DECISIONS "Keys"). */
export interface KeySpec {
  name: string;
  algorithm: KeyAlgorithm;
  sizeBits: number;
  curve?: Curve;
  objectType: ObjectType;
}

export function isSymmetric(spec: KeySpec): boolean {
  return spec.algorithm === 'AES' || spec.algorithm === 'HMAC';
}
