import { SvcError } from '../../../kernel/index.ts';
import { numberValue } from '../attributes.ts';
import { objectRef } from '../key-attributes.ts';
import { bytes, child, enumeration, K, type TtlvItem } from '../ttlv/index.ts';
import { bytesOf, missingUid, uidItem, uidOf, type KmipAdapter, type KmipCall } from './adapter.ts';

const T = K.Tag;
const D = K.DigitalSignatureAlgorithm;
const H = K.HashingAlgorithm;
const A = K.CryptographicAlgorithm;

/** KMIP's Additional Data is bound as this entry of the encryption context (a REST caller decrypts with the same context). */
export const AAD_CONTEXT_KEY = 'kmip.aad';

const SIGNATURE_BY_DSA: Record<number, string> = {
  [D.Sha256WithRsaEncryption]: 'RsaPkcs1Sha256', [D.EcdsaWithSha256]: 'EcdsaSha256', [D.EcdsaWithSha384]: 'EcdsaSha384', [D.EcdsaWithSha512]: 'EcdsaSha512',
};
const HASH_NAMES: Record<number, string> = { [H.Sha256]: 'Sha256', [H.Sha384]: 'Sha384', [H.Sha512]: 'Sha512' };
const HMAC_BY_ALGORITHM: Record<number, string> = { [A.HmacSha256]: 'HmacSha256', [A.HmacSha384]: 'HmacSha384', [A.HmacSha512]: 'HmacSha512' };

/**
 * The service's signature algorithm named by Cryptographic Parameters; undefined means the key's own
 * default. Throws InvalidField for a combination the service does not offer.
 */
export function signatureAlgorithm(params: TtlvItem | undefined): string | undefined {
  if (!params) return undefined;
  const dsa = numberValue(child(params, T.DigitalSignatureAlgorithm));
  const hash = numberValue(child(params, T.HashingAlgorithm));
  const padding = numberValue(child(params, T.PaddingMethod));
  const algorithm = numberValue(child(params, T.CryptographicAlgorithm));
  const hashName = hash === undefined ? undefined : HASH_NAMES[hash];
  if (hash !== undefined && !hashName) throw new SvcError('InvalidField', 'Hashing Algorithm must be SHA-256, SHA-384 or SHA-512');
  if (dsa !== undefined) {
    if (dsa === D.RsassaPss) return `RsaPss${hashName ?? 'Sha256'}`;
    const named = SIGNATURE_BY_DSA[dsa];
    if (!named) throw new SvcError('InvalidField', `Digital Signature Algorithm ${dsa} is not offered (SHA256withRSA, RSASSA-PSS, ECDSA with SHA-256/384/512)`);
    return named;
  }
  if (algorithm !== undefined && HMAC_BY_ALGORITHM[algorithm]) return HMAC_BY_ALGORITHM[algorithm];
  if (padding === K.PaddingMethod.Pss) return `RsaPss${hashName ?? 'Sha256'}`;
  if (padding === K.PaddingMethod.Pkcs1v15) {
    if (hashName && hashName !== 'Sha256') throw new SvcError('InvalidField', 'PKCS#1 v1.5 signatures use SHA-256');
    return 'RsaPkcs1Sha256';
  }
  if (algorithm === A.Ecdsa || algorithm === A.Ec) return `Ecdsa${hashName ?? 'Sha256'}`;
  return undefined;
}

/** Runs a keyed crypto operation; translation problems go to the pipeline as its refusal. */
async function keyed<R>(call: KmipCall, payload: TtlvItem, operationId: string, build: () => Record<string, unknown>): Promise<{ uid: string; result: R }> {
  const uid = uidOf(payload, call);
  let input: Record<string, unknown> = {};
  let rejected: SvcError | undefined = uid === undefined ? missingUid() : undefined;
  try {
    input = build();
  } catch (err) {
    rejected ??= err instanceof SvcError ? err : new SvcError('InvalidField', String(err));
  }
  const id = uid === undefined ? undefined : objectRef(uid).keyId;
  return { uid: uid ?? '', result: await call.run<R>(operationId, { ...input, ...(id !== undefined ? { id } : {}) }, rejected) };
}

const dataOf = (payload: TtlvItem): Buffer => {
  const data = bytesOf(payload, T.Data);
  if (!data) throw new SvcError('InvalidField', 'Data is required');
  return data;
};

/** The GCM parameters KMIP carries: the service draws its own IV, and the envelope carries IV, tag and key version. */
function checkGcm(payload: TtlvItem, decrypting: boolean): void {
  const mode = numberValue(child(child(payload, T.CryptographicParameters), T.BlockCipherMode));
  if (mode !== undefined && mode !== K.BlockCipherMode.Gcm) throw new SvcError('InvalidField', 'the service encrypts with AES-GCM only (Block Cipher Mode GCM)');
  if (bytesOf(payload, T.IvCounterNonce)) throw new SvcError('InvalidField', decrypting ? 'Data is the ciphertext Encrypt answered, which carries its IV: send no IV/Counter/Nonce' : 'the service draws a fresh IV for every encryption: send no IV/Counter/Nonce');
  if (decrypting && bytesOf(payload, T.AuthenticatedEncryptionTag)) throw new SvcError('InvalidField', 'Data is the ciphertext Encrypt answered, which carries its tag: send no Authenticated Encryption Tag');
}

function aadContext(payload: TtlvItem): Record<string, unknown> {
  const aad = bytesOf(payload, T.AuthenticatedEncryptionAdditionalData);
  return aad ? { context: { [AAD_CONTEXT_KEY]: aad.toString('base64') } } : {};
}

export const encrypt: KmipAdapter = async (payload, call) => {
  const { uid, result } = await keyed<{ ciphertextBase64: string }>(call, payload, 'Encrypt', () => {
    checkGcm(payload, false);
    return { plaintextBase64: dataOf(payload).toString('base64'), ...aadContext(payload) };
  });
  return { payload: [uidItem(uid), bytes(T.Data, Buffer.from(result.ciphertextBase64, 'base64'))], uid };
};

export const decrypt: KmipAdapter = async (payload, call) => {
  const { uid, result } = await keyed<{ plaintextBase64: string }>(call, payload, 'Decrypt', () => {
    checkGcm(payload, true);
    return { ciphertextBase64: dataOf(payload).toString('base64'), ...aadContext(payload) };
  });
  return { payload: [uidItem(uid), bytes(T.Data, Buffer.from(result.plaintextBase64, 'base64'))], uid };
};

function signInput(payload: TtlvItem): Record<string, unknown> {
  if (bytesOf(payload, T.DigestedData)) throw new SvcError('InvalidField', 'the service signs the message itself: send Data, not Digested Data');
  const algorithm = signatureAlgorithm(child(payload, T.CryptographicParameters));
  return { messageBase64: dataOf(payload).toString('base64'), ...(algorithm ? { algorithm } : {}) };
}

function verifyInput(payload: TtlvItem, signatureTag: number): Record<string, unknown> {
  const signature = bytesOf(payload, signatureTag);
  if (!signature) throw new SvcError('InvalidField', signatureTag === T.MacData ? 'MAC Data is required' : 'Signature Data is required');
  return { ...signInput(payload), signatureBase64: signature.toString('base64') };
}

const validity = (valid: boolean) => enumeration(T.ValidityIndicator, valid ? K.ValidityIndicator.Valid : K.ValidityIndicator.Invalid);

export const sign: KmipAdapter = async (payload, call) => {
  const { uid, result } = await keyed<{ signatureBase64: string }>(call, payload, 'Sign', () => signInput(payload));
  return { payload: [uidItem(uid), bytes(T.SignatureData, Buffer.from(result.signatureBase64, 'base64'))], uid };
};

export const signatureVerify: KmipAdapter = async (payload, call) => {
  const { uid, result } = await keyed<{ valid: boolean }>(call, payload, 'Verify', () => verifyInput(payload, T.SignatureData));
  return { payload: [uidItem(uid), validity(result.valid)], uid };
};

/** MAC is an HMAC signature: the service's Sign with an HMAC key. */
export const mac: KmipAdapter = async (payload, call) => {
  const { uid, result } = await keyed<{ signatureBase64: string }>(call, payload, 'Sign', () => signInput(payload));
  return { payload: [uidItem(uid), bytes(T.MacData, Buffer.from(result.signatureBase64, 'base64'))], uid };
};

export const macVerify: KmipAdapter = async (payload, call) => {
  const { uid, result } = await keyed<{ valid: boolean }>(call, payload, 'Verify', () => verifyInput(payload, T.MacData));
  return { payload: [uidItem(uid), validity(result.valid)], uid };
};
