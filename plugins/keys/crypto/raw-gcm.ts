import { createCipheriv, createDecipheriv } from 'node:crypto';
import { IvPool } from './iv-pool.ts';

/**
 * AES-GCM's 96-bit IV: the only length the service takes (other lengths are hashed into a counter by GCM, a footgun).
 */
export const RAW_IV_BYTES = 12;
/** The full 128-bit tag: shorter tags weaken GCM's forgery bound, so none is offered. */
export const RAW_TAG_BYTES = 16;

const ivs = new IvPool();
const GCM_BY_KEY_BYTES: Record<number, 'aes-128-gcm' | 'aes-192-gcm' | 'aes-256-gcm'> = {
  16: 'aes-128-gcm',
  24: 'aes-192-gcm',
  32: 'aes-256-gcm',
};

export interface RawSealed {
  ciphertext: Buffer;
  iv: Buffer;
  tag: Buffer;
}

/**
 * AES-GCM as any standard client runs it (KMIP, PKCS#11, OpenSSL): the IV, tag and ciphertext travel as
 * separate parts and the additional data is exactly the caller's bytes, with nothing of the service's
 * (key id, version) bound in. Whoever holds the key material can open the parts with any GCM library.
 */
export function sealRaw(secret: Buffer, plaintext: Buffer, aad: Buffer): RawSealed {
  // Always an IV the service draws: a caller's IV could repeat one, and GCM under a repeated IV leaks
  // the keystream and the authentication key, so anyone allowed to encrypt could read and forge.
  const iv = ivs.next();
  const cipher = createCipheriv(GCM_BY_KEY_BYTES[secret.length]!, secret, iv);
  if (aad.length) cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { ciphertext, iv: Buffer.from(iv), tag: cipher.getAuthTag() };
}

/** Opens parts made by sealRaw (or any GCM implementation); throws on a wrong key, IV, tag or additional data. */
export function openRaw(secret: Buffer, ciphertext: Buffer, iv: Buffer, tag: Buffer, aad: Buffer): Buffer {
  const decipher = createDecipheriv(GCM_BY_KEY_BYTES[secret.length]!, secret, iv, { authTagLength: RAW_TAG_BYTES });
  if (aad.length) decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}
