import {
  isUuid,
  ML_DSA_SETS,
  type ManagedKey,
  PARAMETER_SETS,
  type ParameterSet,
  SvcError,
} from '../../../kernel/index.ts';
import type { AttributeList } from './attributes.ts';
import { boolean, dateTime, enumeration, integer, K, structure, text } from './ttlv/index.ts';

const T = K.Tag;
const A = K.CryptographicAlgorithm;

/** The public half of an asymmetric key is its own KMIP object: `<key id>-public`. */
export const PUBLIC_SUFFIX = '-public';

export interface ObjectRef {
  /** The service's key id. */
  keyId: string;
  /** Whether the UID names the public half. */
  publicHalf: boolean;
}

export function objectRef(uid: string): ObjectRef {
  // Only a key id names a public half: an alias ending in -public is an alias (of whatever key it names).
  return uid.endsWith(PUBLIC_SUFFIX) && isUuid(uid.slice(0, -PUBLIC_SUFFIX.length))
    ? { keyId: uid.slice(0, -PUBLIC_SUFFIX.length), publicHalf: true }
    : { keyId: uid, publicHalf: false };
}

export const isAsymmetric = (key: Pick<ManagedKey, 'spec'>) => key.spec.objectType === 'PrivateKey';

const CURVE_CODES: Record<string, number> = {
  'P-256': K.RecommendedCurve.P256,
  'P-384': K.RecommendedCurve.P384,
  'P-521': K.RecommendedCurve.P521,
};
const HMAC_CODES: Record<number, number> = { 256: A.HmacSha256, 384: A.HmacSha384, 512: A.HmacSha512 };

/**
 * The Cryptographic Algorithm of each ML-DSA (FIPS 204) and SLH-DSA (FIPS 205) parameter set: KMIP 3.0's
 * values (its Cryptographic Algorithm Enumeration gives every set one, after ML-KEM's 0x39..0x3B). The
 * codec's tables stop at KMIP 2.0's Ed448 (0x38); these are read and answered in every protocol version,
 * so a 1.x or 2.0 client names a set by its number. One value per set: the set is the key type, as the
 * REST API's parameterSet is, and Cryptographic Length (its security strength) follows from it.
 */
export const PQ_ALGORITHM_CODES: Readonly<Record<ParameterSet, number>> = {
  'ML-DSA-44': 0x3c,
  'ML-DSA-65': 0x3d,
  'ML-DSA-87': 0x3e,
  'SLH-DSA-SHA2-128s': 0x3f,
  'SLH-DSA-SHA2-128f': 0x40,
  'SLH-DSA-SHA2-192s': 0x41,
  'SLH-DSA-SHA2-192f': 0x42,
  'SLH-DSA-SHA2-256s': 0x43,
  'SLH-DSA-SHA2-256f': 0x44,
  'SLH-DSA-SHAKE-128s': 0x45,
  'SLH-DSA-SHAKE-128f': 0x46,
  'SLH-DSA-SHAKE-192s': 0x47,
  'SLH-DSA-SHAKE-192f': 0x48,
  'SLH-DSA-SHAKE-256s': 0x49,
  'SLH-DSA-SHAKE-256f': 0x4a,
};
const PQ_SET_OF_CODE = new Map<number, ParameterSet>(PARAMETER_SETS.map((set) => [PQ_ALGORITHM_CODES[set], set]));

/** The parameter set a Cryptographic Algorithm value names, or undefined when it names none. */
export const parameterSetOfCode = (code: number | undefined): ParameterSet | undefined =>
  code === undefined ? undefined : PQ_SET_OF_CODE.get(code);

/** The key family of a parameter set. */
export const familyOf = (set: ParameterSet): 'ML-DSA' | 'SLH-DSA' =>
  (ML_DSA_SETS as readonly string[]).includes(set) ? 'ML-DSA' : 'SLH-DSA';

/** The KMIP Cryptographic Algorithm of a key. */
export function algorithmCode(key: Pick<ManagedKey, 'spec'>): number {
  switch (key.spec.algorithm) {
    case 'AES':
      return A.Aes;
    case 'RSA':
      return A.Rsa;
    case 'EC':
      return A.Ecdsa;
    case 'HMAC':
      return HMAC_CODES[key.spec.sizeBits] ?? A.HmacSha256;
    case 'ML-DSA':
    case 'SLH-DSA':
      return PQ_ALGORITHM_CODES[key.spec.parameterSet!];
    default:
      return key.spec.curve === 'Ed448' ? A.Ed448 : A.Ed25519;
  }
}

const STATE_CODES: Record<ManagedKey['state'], number> = {
  PreActive: K.State.PreActive,
  Active: K.State.Active,
  Deactivated: K.State.Deactivated,
  Compromised: K.State.Compromised,
  Destroyed: K.State.Destroyed,
};
export const STATE_NAMES = Object.fromEntries(
  Object.entries(STATE_CODES).map(([name, code]) => [code, name]),
) as Record<number, ManagedKey['state']>;

/** What each object may be used for, from its algorithm. */
function usageMask(key: ManagedKey, publicHalf: boolean): number {
  const U = K.CryptographicUsageMask;
  if (key.spec.algorithm === 'AES') return U.Encrypt | U.Decrypt | U.WrapKey | U.UnwrapKey;
  if (key.spec.algorithm === 'HMAC') return U.MacGenerate | U.MacVerify;
  return publicHalf ? U.Verify : U.Sign;
}

const date = (iso: string | undefined) => (iso ? (tag: number) => dateTime(tag, new Date(iso)) : undefined);

/** A key's KMIP attributes (of its public half when `publicHalf`), in the order GetAttributeList names them. */
export function keyAttributes(key: ManagedKey, publicHalf: boolean, v2: boolean): AttributeList {
  const uid = publicHalf ? `${key.id}${PUBLIC_SUFFIX}` : key.id;
  const objectType = publicHalf
    ? K.ObjectType.PublicKey
    : key.spec.objectType === 'SymmetricKey'
      ? K.ObjectType.SymmetricKey
      : K.ObjectType.PrivateKey;
  const changed = [key.createdAt, key.activatedAt, key.rotatedAt, key.revokedAt, key.compromisedAt, key.destroyedAt]
    .filter((d): d is string => Boolean(d))
    .sort()
    .at(-1);
  const list: AttributeList = [
    ['Unique Identifier', (tag) => text(tag, uid)],
    [
      'Name',
      (tag) =>
        structure(tag, [text(T.NameValue, key.spec.name), enumeration(T.NameType, K.NameType.UninterpretedTextString)]),
    ],
    ['Object Type', (tag) => enumeration(tag, objectType)],
    ['Cryptographic Algorithm', (tag) => enumeration(tag, algorithmCode(key))],
    ['Cryptographic Length', (tag) => integer(tag, key.spec.sizeBits)],
    ['Cryptographic Usage Mask', (tag) => integer(tag, usageMask(key, publicHalf))],
    ['State', (tag) => enumeration(tag, STATE_CODES[key.state])],
  ];
  const dates: Array<[string, ((tag: number) => ReturnType<typeof dateTime>) | undefined]> = [
    ['Initial Date', date(key.createdAt)],
    ['Activation Date', date(key.activatedAt)],
    ['Deactivation Date', date(key.revokedAt ?? key.compromisedAt)],
    ['Compromise Date', date(key.compromisedAt)],
    ['Destroy Date', date(key.destroyedAt)],
    ['Last Change Date', date(changed)],
  ];
  for (const [name, value] of dates) if (value) list.push([name, value]);
  // Extractable is a KMIP 2.0 attribute: 1.x clients cannot read it.
  if (v2) list.push(['Extractable', (tag) => boolean(tag, publicHalf || key.spec.exportable)]);
  return list;
}

export interface RequestedSpec {
  algorithm: 'AES' | 'RSA' | 'EC' | 'EdDSA' | 'HMAC' | 'ML-DSA' | 'SLH-DSA';
  sizeBits?: number;
  curve?: string;
  /** ML-DSA and SLH-DSA: the set the Cryptographic Algorithm value names. */
  parameterSet?: ParameterSet;
}

const CURVE_OF_CODE: Record<number, string> = Object.fromEntries(Object.entries(CURVE_CODES).map(([n, c]) => [c, n]));
const CURVE_OF_LENGTH: Record<number, string> = { 256: 'P-256', 384: 'P-384', 521: 'P-521' };

/**
 * The key spec's algorithm, size and curve (or parameter set) from KMIP's Cryptographic Algorithm, Length
 * and Recommended Curve. Values the service has no key type for are InvalidField, worded for the KMIP
 * caller. An ML-DSA or SLH-DSA set's Cryptographic Length, when sent, is its security strength: the
 * service's sizeBits, which refuses another.
 */
export function requestedSpec(
  algorithm: number | undefined,
  length: number | undefined,
  curveCode: number | undefined,
): RequestedSpec {
  if (algorithm === undefined) throw new SvcError('InvalidField', 'Cryptographic Algorithm is required');
  if (algorithm === A.Aes) return { algorithm: 'AES', ...(length !== undefined ? { sizeBits: length } : {}) };
  if (algorithm === A.Rsa) return { algorithm: 'RSA', ...(length !== undefined ? { sizeBits: length } : {}) };
  if (algorithm === A.Ecdsa || algorithm === A.Ec) {
    const curve =
      curveCode !== undefined ? CURVE_OF_CODE[curveCode] : length !== undefined ? CURVE_OF_LENGTH[length] : 'P-256';
    if (!curve)
      throw new SvcError(
        'InvalidField',
        'EC keys are P-256, P-384 or P-521 (Cryptographic Length 256, 384 or 521, or that Recommended Curve)',
      );
    return { algorithm: 'EC', curve };
  }
  if (algorithm === A.Ed25519 || algorithm === A.Ed448)
    return { algorithm: 'EdDSA', curve: algorithm === A.Ed25519 ? 'Ed25519' : 'Ed448' };
  const hmac = Object.entries(HMAC_CODES).find(([, code]) => code === algorithm);
  if (hmac) return { algorithm: 'HMAC', sizeBits: Number(hmac[0]) };
  const parameterSet = parameterSetOfCode(algorithm);
  if (parameterSet)
    return {
      algorithm: familyOf(parameterSet),
      parameterSet,
      ...(length !== undefined ? { sizeBits: length } : {}),
    };
  throw new SvcError(
    'InvalidField',
    `Cryptographic Algorithm ${algorithm} is not one the service makes keys of (AES, RSA, ECDSA/EC, Ed25519, Ed448, ` +
      'HMAC-SHA256/384/512, ML-DSA-44/65/87 and the SLH-DSA sets as KMIP 3.0 numbers them: 0x3C to 0x4A)',
  );
}
