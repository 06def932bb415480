import { SvcError } from '../../../../kernel/index.ts';
import { numberValue } from '../attributes.ts';
import { parameterSetOfCode } from '../key-attributes.ts';
import { bytes, child, enumeration, K, type TtlvItem } from '../ttlv/index.ts';
import { bytesOf, dataOf, keyed, uidItem, type KmipAdapter } from './adapter.ts';

const T = K.Tag;
const D = K.DigitalSignatureAlgorithm;
const H = K.HashingAlgorithm;
const A = K.CryptographicAlgorithm;

const SIGNATURE_BY_DSA: Record<number, string> = {
  [D.Sha256WithRsaEncryption]: 'RsaPkcs1Sha256',
  [D.Sha384WithRsaEncryption]: 'RsaPkcs1Sha384',
  [D.Sha512WithRsaEncryption]: 'RsaPkcs1Sha512',
  [D.EcdsaWithSha256]: 'EcdsaSha256',
  [D.EcdsaWithSha384]: 'EcdsaSha384',
  [D.EcdsaWithSha512]: 'EcdsaSha512',
};
const HASH_NAMES: Record<number, string> = { [H.Sha256]: 'Sha256', [H.Sha384]: 'Sha384', [H.Sha512]: 'Sha512' };
const HMAC_BY_ALGORITHM: Record<number, string> = {
  [A.HmacSha256]: 'HmacSha256',
  [A.HmacSha384]: 'HmacSha384',
  [A.HmacSha512]: 'HmacSha512',
};

/**
 * The service's signature algorithm named by Cryptographic Parameters; undefined means the key's own
 * default. Throws InvalidField for a combination the service does not offer. An ML-DSA or SLH-DSA
 * Cryptographic Algorithm (KMIP 3.0's value of the set) names that set, which signs the message itself:
 * no Hashing Algorithm, Padding Method or Digital Signature Algorithm goes with it (HashML-DSA and
 * HashSLH-DSA, which sign a hash, are not offered). The service refuses a set that is not the key's.
 */
export function signatureAlgorithm(params: TtlvItem | undefined): string | undefined {
  if (!params) return undefined;
  const dsa = numberValue(child(params, T.DigitalSignatureAlgorithm));
  const hash = numberValue(child(params, T.HashingAlgorithm));
  const padding = numberValue(child(params, T.PaddingMethod));
  const algorithm = numberValue(child(params, T.CryptographicAlgorithm));
  const hashName = hash === undefined ? undefined : HASH_NAMES[hash];
  const parameterSet = parameterSetOfCode(algorithm);
  if (parameterSet) {
    if (hash !== undefined || padding !== undefined || dsa !== undefined)
      throw new SvcError(
        'InvalidField',
        `${parameterSet} signs the message itself: send its Cryptographic Parameters without Hashing Algorithm, ` +
          'Padding Method or Digital Signature Algorithm',
      );
    return parameterSet;
  }
  if (hash !== undefined && !hashName)
    throw new SvcError('InvalidField', 'Hashing Algorithm must be SHA-256, SHA-384 or SHA-512');
  if (dsa !== undefined) {
    if (dsa === D.RsassaPss) return `RsaPss${hashName ?? 'Sha256'}`;
    const named = SIGNATURE_BY_DSA[dsa];
    if (!named)
      throw new SvcError(
        'InvalidField',
        `Digital Signature Algorithm ${dsa} is not offered (SHA256/384/512withRSA, RSASSA-PSS, ECDSA with SHA-256/384/512)`,
      );
    return named;
  }
  if (algorithm !== undefined && HMAC_BY_ALGORITHM[algorithm]) return HMAC_BY_ALGORITHM[algorithm];
  if (padding === K.PaddingMethod.Pss) return `RsaPss${hashName ?? 'Sha256'}`;
  if (padding === K.PaddingMethod.Pkcs1v15) return `RsaPkcs1${hashName ?? 'Sha256'}`;
  if (algorithm === A.Ecdsa || algorithm === A.Ec) return `Ecdsa${hashName ?? 'Sha256'}`;
  return undefined;
}

/**
 * Data is the message; Digested Data its hash, signed as the algorithm would have hashed the message
 * (the service's digestBase64: RSA and ECDSA, a hash as long as the algorithm's).
 */
function signInput(payload: TtlvItem): Record<string, unknown> {
  const digest = bytesOf(payload, T.DigestedData);
  if (digest && bytesOf(payload, T.Data))
    throw new SvcError('InvalidField', 'send Data (the message) or Digested Data (its hash), not both');
  const algorithm = signatureAlgorithm(child(payload, T.CryptographicParameters));
  return {
    ...(digest ? { digestBase64: digest.toString('base64') } : { messageBase64: dataOf(payload).toString('base64') }),
    ...(algorithm ? { algorithm } : {}),
  };
}

function verifyInput(payload: TtlvItem, signatureTag: number): Record<string, unknown> {
  const signature = bytesOf(payload, signatureTag);
  if (!signature)
    throw new SvcError(
      'InvalidField',
      signatureTag === T.MacData ? 'MAC Data is required' : 'Signature Data is required',
    );
  return { ...signInput(payload), signatureBase64: signature.toString('base64') };
}

const validity = (valid: boolean) =>
  enumeration(T.ValidityIndicator, valid ? K.ValidityIndicator.Valid : K.ValidityIndicator.Invalid);

export const sign: KmipAdapter = async (payload, call) => {
  const { uid, result } = await keyed<{ signatureBase64: string }>(call, payload, 'Sign', () => signInput(payload));
  return { payload: [uidItem(uid), bytes(T.SignatureData, Buffer.from(result.signatureBase64, 'base64'))], uid };
};

export const signatureVerify: KmipAdapter = async (payload, call) => {
  const { uid, result } = await keyed<{ valid: boolean }>(call, payload, 'Verify', () =>
    verifyInput(payload, T.SignatureData),
  );
  return { payload: [uidItem(uid), validity(result.valid)], uid };
};

/** MAC is an HMAC signature: the service's Sign with an HMAC key. */
export const mac: KmipAdapter = async (payload, call) => {
  const { uid, result } = await keyed<{ signatureBase64: string }>(call, payload, 'Sign', () => signInput(payload));
  return { payload: [uidItem(uid), bytes(T.MacData, Buffer.from(result.signatureBase64, 'base64'))], uid };
};

export const macVerify: KmipAdapter = async (payload, call) => {
  const { uid, result } = await keyed<{ valid: boolean }>(call, payload, 'Verify', () =>
    verifyInput(payload, T.MacData),
  );
  return { payload: [uidItem(uid), validity(result.valid)], uid };
};
