import { constants, type KeyObject, privateEncrypt, publicDecrypt, timingSafeEqual } from 'node:crypto';
import { p256, p384, p521 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { SvcError } from '../../../kernel/index.ts';
import { type PssHash, pssEncode, pssVerify } from './emsa-pss.ts';
import type { ParsedMaterial } from './material.ts';
import { signPostQuantum } from './post-quantum.ts';
import { SIG_ALGORITHMS, signMessage, verifySignature } from './signatures.ts';

/**
 * Signing a hash the caller computed (cosign, the AWS Encryption SDK, AWS KMS's MessageType DIGEST): the
 * signature is exactly the one the algorithm makes over the message whose hash it is, so either verifies
 * as the other. node:crypto always hashes what it signs, so the digest path is its own: the RSA
 * encodings here with OpenSSL's raw RSA operation, ECDSA with @noble/curves. The message path
 * (signatures.ts) stays as it was.
 */

/** What a sign or verify call covers: the message itself, or (RSA and ECDSA) its hash. */
export interface SignedData {
  kind: 'message' | 'digest';
  bytes: Buffer;
}

const HASH_BYTES: Record<PssHash, number> = { sha256: 32, sha384: 48, sha512: 64 };
const HASH_NAMES: Record<PssHash, string> = { sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };

/** DER of DigestInfo up to the hash's bytes (RFC 8017 section 9.2, note 1). */
const DIGEST_INFO: Record<PssHash, Buffer> = {
  sha256: Buffer.from('3031300d060960864801650304020105000420', 'hex'),
  sha384: Buffer.from('3041300d060960864801650304020205000430', 'hex'),
  sha512: Buffer.from('3051300d060960864801650304020305000440', 'hex'),
};

/** node's curve names (KeyObject.asymmetricKeyDetails.namedCurve) to noble's curves. */
const CURVES = { prime256v1: p256, secp384r1: p384, secp521r1: p521, secp256k1 } as const;

const hashOf = (algorithm: string) => SIG_ALGORITHMS[algorithm]!.hash as PssHash;

/**
 * Refuses a digest the algorithm cannot sign: EdDSA and HMAC work on the message itself, and a digest of
 * another length than the algorithm's hash cannot be its hash.
 */
export function requireDigestFits(algorithm: string, digest: Buffer): void {
  const family = SIG_ALGORITHMS[algorithm]!.family;
  if (family === 'EdDSA' || family === 'HMAC' || family === 'PQ')
    throw new SvcError('InvalidField', `${algorithm} signs the message itself; send messageBase64`);
  const hash = hashOf(algorithm);
  if (digest.length !== HASH_BYTES[hash])
    throw new SvcError(
      'InvalidField',
      `digestBase64 must be the ${HASH_BYTES[hash]}-byte ${HASH_NAMES[hash]} hash of the message for ${algorithm}, not ${digest.length} bytes`,
    );
}

/**
 * Signs the message or the digest; a digest must have passed requireDigestFits. A post-quantum signature is
 * made off the event loop (a promise); the others at once, as they take well under a millisecond.
 */
export function signData(algorithm: string, key: ParsedMaterial, data: SignedData): Buffer | Promise<Buffer> {
  if (SIG_ALGORITHMS[algorithm]!.family === 'PQ') return signPostQuantum(key.privateKey!, data.bytes);
  return data.kind === 'digest' ? signDigest(algorithm, key, data.bytes) : signMessage(algorithm, key, data.bytes);
}

/** Verifies over the message or the digest; a digest must have passed requireDigestFits. */
export function verifyData(algorithm: string, key: ParsedMaterial, data: SignedData, signature: Buffer): boolean {
  return data.kind === 'digest'
    ? verifyDigest(algorithm, key, data.bytes, signature)
    : verifySignature(algorithm, key, data.bytes, signature);
}

const modulusBits = (key: KeyObject) => key.asymmetricKeyDetails!.modulusLength!;

function curveOf(key: KeyObject) {
  const name = key.asymmetricKeyDetails?.namedCurve;
  const curve = name && Object.hasOwn(CURVES, name) ? CURVES[name as keyof typeof CURVES] : undefined;
  if (!curve) throw new Error(`no ECDSA implementation for curve ${name}`);
  return curve;
}

/**
 * OpenSSL's private operation blinds and, on an RSA-CRT key, checks its result with the public exponent
 * before answering, as for the message path: a faulty computation never leaves as a signature.
 */
function signDigest(algorithm: string, key: ParsedMaterial, digest: Buffer): Buffer {
  const family = SIG_ALGORITHMS[algorithm]!.family;
  const hash = hashOf(algorithm);
  const privateKey = key.privateKey!;
  if (family === 'RSA-PKCS1')
    // EMSA-PKCS1-v1_5 is block type 1 padding around DigestInfo: what RSA_PKCS1_PADDING does here.
    return privateEncrypt(
      { key: privateKey, padding: constants.RSA_PKCS1_PADDING },
      Buffer.concat([DIGEST_INFO[hash], digest]),
    );
  if (family === 'RSA-PSS')
    return privateEncrypt(
      { key: privateKey, padding: constants.RSA_NO_PADDING },
      pssEncode(hash, digest, modulusBits(privateKey)),
    );
  if (family === 'EC') return ecdsaSignDigest(privateKey, digest);
  throw new SvcError('InvalidField', `${algorithm} signs the message itself; send messageBase64`);
}

function verifyDigest(algorithm: string, key: ParsedMaterial, digest: Buffer, signature: Buffer): boolean {
  const family = SIG_ALGORITHMS[algorithm]!.family;
  const hash = hashOf(algorithm);
  const publicKey = key.publicKey!;
  if (family === 'EC') return ecdsaVerifyDigest(publicKey, digest, signature);
  const decoded = rsaPublicOperation(publicKey, signature);
  if (!decoded) return false;
  if (family === 'RSA-PSS') return pssVerify(hash, digest, decoded, modulusBits(publicKey));
  if (family === 'RSA-PKCS1') {
    // Encode what the signature must be and compare the whole block (RFC 8017 8.2.2), never parse it.
    const expected = pkcs1Encode(Buffer.concat([DIGEST_INFO[hash], digest]), decoded.length);
    return expected !== undefined && timingSafeEqual(expected, decoded);
  }
  return false;
}

/** s^e mod n as k bytes, or undefined for a signature of the wrong length or not below the modulus. */
function rsaPublicOperation(publicKey: KeyObject, signature: Buffer): Buffer | undefined {
  if (signature.length !== Math.ceil(modulusBits(publicKey) / 8)) return undefined;
  try {
    return publicDecrypt({ key: publicKey, padding: constants.RSA_NO_PADDING }, signature);
  } catch {
    return undefined;
  }
}

/** EMSA-PKCS1-v1_5: 0x00 0x01 0xff... 0x00 || T, k bytes; undefined when T leaves fewer than 8 bytes of 0xff. */
function pkcs1Encode(t: Buffer, k: number): Buffer | undefined {
  if (k < t.length + 11) return undefined;
  const em = Buffer.alloc(k, 0xff);
  em[0] = 0x00;
  em[1] = 0x01;
  em[k - t.length - 1] = 0x00;
  t.copy(em, k - t.length);
  return em;
}

/**
 * ECDSA over the given hash (prehash: false), truncated to the order's length by noble as FIPS 186
 * says, DER as the service's other ECDSA signatures. Nonces are RFC 6979 hedged with fresh randomness
 * (extraEntropy): deterministic nonces alone are exposed to fault attacks. Signatures are low-S, which
 * every verifier accepts. The private scalar is read from the key for this signature and zeroed after.
 */
function ecdsaSignDigest(privateKey: KeyObject, digest: Buffer): Buffer {
  const curve = curveOf(privateKey);
  const scalar = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  try {
    return Buffer.from(curve.sign(digest, scalar, { prehash: false, format: 'der', extraEntropy: true }));
  } finally {
    scalar.fill(0);
  }
}

/** lowS: false, since node (OpenSSL) makes high-S signatures over messages half of the time. */
function ecdsaVerifyDigest(publicKey: KeyObject, digest: Buffer, signature: Buffer): boolean {
  const curve = curveOf(publicKey);
  const { x, y } = publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.of(0x04), Buffer.from(x!, 'base64url'), Buffer.from(y!, 'base64url')]);
  try {
    return curve.verify(signature, digest, point, { prehash: false, format: 'der', lowS: false });
  } catch {
    return false; // a malformed signature (bad DER, wrong length) is simply not valid
  }
}
