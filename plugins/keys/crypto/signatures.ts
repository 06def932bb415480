import { constants, createHmac, sign as nodeSign, timingSafeEqual, verify as nodeVerify } from 'node:crypto';
import {
  type KeySpec,
  PARAMETER_SETS,
  type ParameterSet,
  SIGNATURE_ALGORITHMS,
  type SignatureAlgorithm,
  SvcError,
} from '../../../kernel/index.ts';
import type { ParsedMaterial } from './material.ts';

interface SigAlg {
  family: 'RSA-PSS' | 'RSA-PKCS1' | 'EC' | 'EdDSA' | 'HMAC' | 'PQ';
  hash: 'sha256' | 'sha384' | 'sha512' | null;
  digestBytes?: number;
  curve?: string;
  macBits?: number;
}

export const SIG_ALGORITHMS: Record<string, SigAlg> & Record<SignatureAlgorithm, SigAlg> = {
  RsaPssSha256: { family: 'RSA-PSS', hash: 'sha256', digestBytes: 32 },
  RsaPssSha384: { family: 'RSA-PSS', hash: 'sha384', digestBytes: 48 },
  RsaPssSha512: { family: 'RSA-PSS', hash: 'sha512', digestBytes: 64 },
  RsaPkcs1Sha256: { family: 'RSA-PKCS1', hash: 'sha256' },
  RsaPkcs1Sha384: { family: 'RSA-PKCS1', hash: 'sha384' },
  RsaPkcs1Sha512: { family: 'RSA-PKCS1', hash: 'sha512' },
  EcdsaSha256: { family: 'EC', hash: 'sha256' },
  EcdsaSha384: { family: 'EC', hash: 'sha384' },
  EcdsaSha512: { family: 'EC', hash: 'sha512' },
  Ed25519: { family: 'EdDSA', hash: null, curve: 'Ed25519' },
  Ed448: { family: 'EdDSA', hash: null, curve: 'Ed448' },
  HmacSha256: { family: 'HMAC', hash: 'sha256', macBits: 256 },
  HmacSha384: { family: 'HMAC', hash: 'sha384', macBits: 384 },
  HmacSha512: { family: 'HMAC', hash: 'sha512', macBits: 512 },
  // A post-quantum key signs the message itself with its own parameter set.
  ...(Object.fromEntries(PARAMETER_SETS.map((set) => [set, { family: 'PQ', hash: null }])) as Record<
    ParameterSet,
    SigAlg
  >),
};

export const SIG_ALGORITHM_NAMES: readonly string[] = SIGNATURE_ALGORITHMS;

/** The algorithm used when a sign or verify request names none. */
export function defaultSigAlgorithm(spec: KeySpec): string {
  switch (spec.algorithm) {
    case 'RSA':
      return 'RsaPssSha256';
    case 'EC':
      return spec.curve === 'P-384' ? 'EcdsaSha384' : spec.curve === 'P-521' ? 'EcdsaSha512' : 'EcdsaSha256';
    case 'EdDSA':
      return spec.curve!;
    case 'HMAC':
      return `HmacSha${spec.sizeBits}`;
    case 'ML-DSA':
    case 'SLH-DSA':
      return spec.parameterSet!;
    default:
      throw new SvcError(
        'InvalidField',
        `${spec.algorithm} keys do not sign; use an RSA, EC, EdDSA, HMAC, ML-DSA or SLH-DSA key`,
      );
  }
}

/** Resolves the requested algorithm and checks it fits the key's type and curve or size. */
export function resolveSigAlgorithm(spec: KeySpec, requested: string | undefined): string {
  const name = requested ?? defaultSigAlgorithm(spec);
  // Own names only: the caller's `constructor` or `toString` must not find Object.prototype's members.
  const alg = Object.hasOwn(SIG_ALGORITHMS, name) ? SIG_ALGORITHMS[name] : undefined;
  if (!alg) throw new SvcError('InvalidField', `algorithm must be one of ${SIG_ALGORITHM_NAMES.join(', ')}`);
  const fits =
    ((alg.family === 'RSA-PSS' || alg.family === 'RSA-PKCS1') && spec.algorithm === 'RSA') ||
    (alg.family === 'EC' && spec.algorithm === 'EC') ||
    (alg.family === 'EdDSA' && spec.algorithm === 'EdDSA' && spec.curve === alg.curve) ||
    (alg.family === 'HMAC' && spec.algorithm === 'HMAC' && spec.sizeBits === alg.macBits) ||
    (alg.family === 'PQ' && spec.parameterSet === name);
  if (!fits)
    throw new SvcError(
      'InvalidField',
      `algorithm ${name} does not fit a ${spec.parameterSet ?? `${spec.algorithm}${spec.curve ? ` ${spec.curve}` : ` ${spec.sizeBits}`}`} key`,
    );
  return name;
}

function rsaOptions(alg: SigAlg) {
  return alg.family === 'RSA-PSS'
    ? { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: alg.digestBytes }
    : { padding: constants.RSA_PKCS1_PADDING };
}

/** `ecdsa`: DER (the service's signatures) or ieee-p1363, r and s side by side as JWS wants them. */
export function signMessage(
  algorithm: string,
  key: ParsedMaterial,
  message: Buffer,
  ecdsa: 'der' | 'ieee-p1363' = 'der',
): Buffer {
  const alg = SIG_ALGORITHMS[algorithm]!;
  if (alg.family === 'HMAC') return createHmac(alg.hash!, key.secret!).update(message).digest();
  if (alg.family === 'RSA-PSS' || alg.family === 'RSA-PKCS1')
    return nodeSign(alg.hash, message, { key: key.privateKey!, ...rsaOptions(alg) });
  if (alg.family === 'EC' && ecdsa !== 'der')
    return nodeSign(alg.hash, message, { key: key.privateKey!, dsaEncoding: ecdsa });
  if (alg.family === 'PQ') throw new Error('post-quantum signatures are made with signPostQuantum, off the event loop');
  return nodeSign(alg.hash, message, key.privateKey!);
}

export function verifySignature(algorithm: string, key: ParsedMaterial, message: Buffer, signature: Buffer): boolean {
  const alg = SIG_ALGORITHMS[algorithm]!;
  if (alg.family === 'HMAC') {
    const expected = createHmac(alg.hash!, key.secret!).update(message).digest();
    return expected.length === signature.length && timingSafeEqual(expected, signature);
  }
  try {
    if (alg.family === 'RSA-PSS' || alg.family === 'RSA-PKCS1')
      return nodeVerify(alg.hash, message, { key: key.publicKey!, ...rsaOptions(alg) }, signature);
    return nodeVerify(alg.hash, message, key.publicKey!, signature);
  } catch {
    return false; // a malformed signature (bad DER) is simply not valid
  }
}
