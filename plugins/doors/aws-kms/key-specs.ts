import { SvcError } from '../../../kernel/index.ts';

/** A key's algorithm in the service's terms, as a CreateKey spec gives it. */
export interface ServiceSpec {
  algorithm: 'AES' | 'RSA' | 'EC' | 'EdDSA' | 'HMAC';
  sizeBits?: number;
  curve?: string;
}

type KeyUsage = 'ENCRYPT_DECRYPT' | 'SIGN_VERIFY' | 'GENERATE_VERIFY_MAC';

interface AwsKeySpec {
  spec: ServiceSpec;
  usage: KeyUsage;
  /** AWS signing algorithm -> the service's (SIGN_VERIFY keys). */
  signing?: Record<string, string>;
  /** AWS MAC algorithm -> the service's (GENERATE_VERIFY_MAC keys). */
  mac?: Record<string, string>;
}

const RSA_SIGNING = {
  RSASSA_PSS_SHA_256: 'RsaPssSha256',
  RSASSA_PSS_SHA_384: 'RsaPssSha384',
  RSASSA_PSS_SHA_512: 'RsaPssSha512',
  RSASSA_PKCS1_V1_5_SHA_256: 'RsaPkcs1Sha256',
  RSASSA_PKCS1_V1_5_SHA_384: 'RsaPkcs1Sha384',
  RSASSA_PKCS1_V1_5_SHA_512: 'RsaPkcs1Sha512',
};
const ecdsa = (hash: 256 | 384 | 512) => ({ [`ECDSA_SHA_${hash}`]: `EcdsaSha${hash}` });

/** The KeySpecs the door offers, as AWS names them (AWS's own pairings of curve and hash). */
export const KEY_SPECS: Record<string, AwsKeySpec> = {
  SYMMETRIC_DEFAULT: { spec: { algorithm: 'AES', sizeBits: 256 }, usage: 'ENCRYPT_DECRYPT' },
  RSA_2048: { spec: { algorithm: 'RSA', sizeBits: 2048 }, usage: 'SIGN_VERIFY', signing: RSA_SIGNING },
  RSA_3072: { spec: { algorithm: 'RSA', sizeBits: 3072 }, usage: 'SIGN_VERIFY', signing: RSA_SIGNING },
  RSA_4096: { spec: { algorithm: 'RSA', sizeBits: 4096 }, usage: 'SIGN_VERIFY', signing: RSA_SIGNING },
  ECC_NIST_P256: { spec: { algorithm: 'EC', curve: 'P-256' }, usage: 'SIGN_VERIFY', signing: ecdsa(256) },
  ECC_NIST_P384: { spec: { algorithm: 'EC', curve: 'P-384' }, usage: 'SIGN_VERIFY', signing: ecdsa(384) },
  ECC_NIST_P521: { spec: { algorithm: 'EC', curve: 'P-521' }, usage: 'SIGN_VERIFY', signing: ecdsa(512) },
  ECC_SECG_P256K1: { spec: { algorithm: 'EC', curve: 'secp256k1' }, usage: 'SIGN_VERIFY', signing: ecdsa(256) },
  ECC_NIST_EDWARDS25519: {
    spec: { algorithm: 'EdDSA', curve: 'Ed25519' },
    usage: 'SIGN_VERIFY',
    signing: { ED25519_SHA_512: 'Ed25519' },
  },
  HMAC_256: {
    spec: { algorithm: 'HMAC', sizeBits: 256 },
    usage: 'GENERATE_VERIFY_MAC',
    mac: { HMAC_SHA_256: 'HmacSha256' },
  },
  HMAC_384: {
    spec: { algorithm: 'HMAC', sizeBits: 384 },
    usage: 'GENERATE_VERIFY_MAC',
    mac: { HMAC_SHA_384: 'HmacSha384' },
  },
  HMAC_512: {
    spec: { algorithm: 'HMAC', sizeBits: 512 },
    usage: 'GENERATE_VERIFY_MAC',
    mac: { HMAC_SHA_512: 'HmacSha512' },
  },
};

/** The AWS KeySpec of a key the service holds (keys made over REST too), or undefined for one AWS has no name for. */
export function awsKeySpecOf(spec: { algorithm: string; sizeBits: number; curve?: string }): string | undefined {
  for (const [name, entry] of Object.entries(KEY_SPECS)) {
    const s = entry.spec;
    if (s.algorithm !== spec.algorithm) continue;
    if (s.curve !== undefined ? s.curve === spec.curve : s.sizeBits === spec.sizeBits) return name;
  }
  return undefined;
}

/** CreateKey's KeySpec and KeyUsage checked together, as AWS pairs them. */
export function keySpecFor(keySpec: string, keyUsage: string | undefined): AwsKeySpec {
  const entry = Object.hasOwn(KEY_SPECS, keySpec) ? KEY_SPECS[keySpec] : undefined;
  if (!entry)
    throw new SvcError('InvalidField', `KeySpec must be one of ${Object.keys(KEY_SPECS).join(', ')}; got ${keySpec}`);
  if (keyUsage !== undefined && keyUsage !== entry.usage)
    throw new SvcError(
      'InvalidField',
      `KeyUsage ${keyUsage} is not valid for KeySpec ${keySpec}` +
        (keySpec.startsWith('RSA_') && keyUsage === 'ENCRYPT_DECRYPT'
          ? ': RSA keys here sign and verify (RSAES_OAEP is not offered)'
          : `; use ${entry.usage}`),
    );
  return entry;
}

const flatten = (pick: (e: AwsKeySpec) => Record<string, string> | undefined) =>
  Object.assign({}, ...Object.values(KEY_SPECS).map((e) => pick(e) ?? {})) as Record<string, string>;
/** AWS SigningAlgorithm -> the service's; the key itself says whether it fits (ValidationException if not). */
export const SIGNING_ALGORITHMS = flatten((e) => e.signing);
export const MAC_ALGORITHMS = flatten((e) => e.mac);

/** The service's algorithm for an AWS SigningAlgorithm or MacAlgorithm. */
export function algorithmFor(table: Record<string, string>, awsAlgorithm: string, field: string): string {
  const algorithm = Object.hasOwn(table, awsAlgorithm) ? table[awsAlgorithm] : undefined;
  if (!algorithm) throw new SvcError('InvalidField', `${field} must be one of ${Object.keys(table).join(', ')}`);
  return algorithm;
}

/** The AWS name of one of the service's algorithms (for answers), from the same tables. */
export function awsAlgorithmOf(table: Record<string, string>, algorithm: string): string | undefined {
  return Object.entries(table).find(([, ours]) => ours === algorithm)?.[0];
}
