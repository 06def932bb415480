import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * EMSA-PSS (RFC 8017 section 9.1) over a hash the caller computed. node:crypto signs and verifies PSS only
 * over a message it hashes itself, and no well-kept library signs a given digest with PSS, so a digest
 * is encoded here and the raw RSA operation (RSA_NO_PADDING) is left to OpenSSL, key and blinding
 * included. The salt is as long as the hash and MGF1 uses the same hash, as the service's message
 * signatures do, so a signature of either kind verifies as the other.
 */

export type PssHash = 'sha256' | 'sha384' | 'sha512';

/** MGF1 (RFC 8017 B.2.1): Hash(seed || counter) for counter 0, 1, ..., cut to `length` bytes. */
function mgf1(hash: PssHash, seed: Buffer, length: number): Buffer {
  const blocks: Buffer[] = [];
  let produced = 0;
  for (let counter = 0; produced < length; counter++) {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    const block = createHash(hash).update(seed).update(c).digest();
    blocks.push(block);
    produced += block.length;
  }
  return Buffer.concat(blocks).subarray(0, length);
}

/** H = Hash(0x00 * 8 || mHash || salt), step 6 of the encoding and step 13 of the check. */
const saltedHash = (hash: PssHash, mHash: Buffer, salt: Buffer) =>
  createHash(hash).update(Buffer.alloc(8)).update(mHash).update(salt).digest();

/** How many bytes EM has for a modulus of `modBits` bits: emBits = modBits - 1 (RFC 8017 8.1.1). */
const emLength = (modBits: number) => Math.ceil((modBits - 1) / 8);
/** The top bits of EM's first byte that must be zero so that EM is below the modulus. */
const topMask = (modBits: number) => 0xff >> (8 * emLength(modBits) - (modBits - 1));

/**
 * EMSA-PSS-ENCODE (RFC 8017 9.1.1) of `mHash`, left-padded with zeros to the modulus's `k` bytes, ready
 * for the raw private operation. The salt is fresh randomness as long as the hash.
 */
export function pssEncode(hash: PssHash, mHash: Buffer, modBits: number): Buffer {
  const hLen = mHash.length;
  const sLen = hLen;
  const emLen = emLength(modBits);
  if (emLen < hLen + sLen + 2) throw new Error(`a ${modBits}-bit modulus is too short for PSS with ${hash}`);
  const salt = randomBytes(sLen);
  const h = saltedHash(hash, mHash, salt);
  // DB = PS (zeros) || 0x01 || salt, masked with MGF1(H).
  const db = Buffer.alloc(emLen - hLen - 1);
  db[emLen - sLen - hLen - 2] = 0x01;
  salt.copy(db, emLen - sLen - hLen - 1);
  const mask = mgf1(hash, h, db.length);
  for (let i = 0; i < db.length; i++) db[i]! ^= mask[i]!;
  db[0]! &= topMask(modBits);
  const k = Math.ceil(modBits / 8);
  const out = Buffer.alloc(k);
  db.copy(out, k - emLen);
  h.copy(out, k - emLen + db.length);
  out[k - 1] = 0xbc;
  return out;
}

/**
 * EMSA-PSS-VERIFY (RFC 8017 9.1.2) with the salt length fixed to the hash's: `decoded` is the public
 * operation's output, `k` bytes (RSA_NO_PADDING); true only when it encodes `mHash`.
 */
export function pssVerify(hash: PssHash, mHash: Buffer, decoded: Buffer, modBits: number): boolean {
  const hLen = mHash.length;
  const sLen = hLen;
  const emLen = emLength(modBits);
  const k = Math.ceil(modBits / 8);
  if (decoded.length !== k || emLen < hLen + sLen + 2) return false;
  // A modulus of 8n + 1 bits has a zero byte in front of EM.
  for (let i = 0; i < k - emLen; i++) if (decoded[i] !== 0) return false;
  const em = decoded.subarray(k - emLen);
  if (em[emLen - 1] !== 0xbc) return false;
  const maskedDb = em.subarray(0, emLen - hLen - 1);
  const h = em.subarray(emLen - hLen - 1, emLen - 1);
  if ((maskedDb[0]! & ~topMask(modBits)) !== 0) return false;
  const mask = mgf1(hash, h, maskedDb.length);
  const db = Buffer.alloc(maskedDb.length);
  for (let i = 0; i < db.length; i++) db[i] = maskedDb[i]! ^ mask[i]!;
  db[0]! &= topMask(modBits);
  const ps = emLen - hLen - sLen - 2;
  for (let i = 0; i < ps; i++) if (db[i] !== 0) return false;
  if (db[ps] !== 0x01) return false;
  const expected = saltedHash(hash, mHash, db.subarray(db.length - sLen));
  return timingSafeEqual(expected, h);
}
