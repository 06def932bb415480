import { DER } from '@noble/curves/abstract/der.js';
import { invalid } from './vault-errors.ts';

// The byte length of r and s for each curve the service's EC keys use.
const SCALAR_BYTES: Record<string, number> = { 'P-256': 32, 'P-384': 48, 'P-521': 66, secp256k1: 32 };

const fixed = (n: bigint, bytes: number) => Buffer.from(n.toString(16).padStart(bytes * 2, '0'), 'hex');

/** An ECDSA signature in DER (the service's form) as JWS writes it: r and s side by side, fixed width. */
export function derToJose(der: Buffer, curve: string | undefined): Buffer {
  const bytes = SCALAR_BYTES[curve ?? ''];
  if (!bytes) throw invalid(`marshaling_algorithm jws: no fixed width for curve ${curve}`);
  const { r, s } = DER.toSig(der);
  return Buffer.concat([fixed(r, bytes), fixed(s, bytes)]);
}

/**
 * A JWS ECDSA signature (r || s) in DER, as the service verifies it. Only the curve's own width is
 * taken: r and s padded wider would be a second encoding of one signature that verifies too.
 */
export function joseToDer(jose: Buffer, curve: string | undefined): Buffer {
  const bytes = SCALAR_BYTES[curve ?? ''];
  if (!bytes || jose.length !== 2 * bytes)
    throw invalid(`a jws ECDSA signature on ${curve} is r and s of ${bytes ?? '?'} bytes each`);
  const half = jose.length / 2;
  const r = BigInt(`0x${jose.subarray(0, half).toString('hex')}`);
  const s = BigInt(`0x${jose.subarray(half).toString('hex')}`);
  if (r === 0n || s === 0n) throw invalid('a jws ECDSA signature has r and s above zero');
  return Buffer.from(DER.hexFromSig({ r, s }), 'hex');
}

// Vault's hash names to the service's digest sizes; the others Vault knows (sha1, sha2-224, sha3-*) are not offered.
const HASH_BITS: Record<string, number> = { 'sha2-256': 256, 'sha2-384': 384, 'sha2-512': 512 };

/** The digest size of a Vault hash name (default sha2-256). */
export function hashBits(name: string | undefined): number {
  const bits = HASH_BITS[name ?? 'sha2-256'];
  if (!bits) throw invalid(`hash_algorithm ${name} is not offered here: sha2-256, sha2-384 or sha2-512`);
  return bits;
}
