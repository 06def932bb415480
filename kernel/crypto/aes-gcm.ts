import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV = 12;
const TAG = 16;

/**
 * AES-256-GCM with a random 96-bit IV, the format of every wrapped key in svc-kms:
 * format byte | IV | tag | ciphertext, the AAD binding the blob to what it belongs to.
 */
export function sealAesGcm(key: Buffer, format: number, aad: string, plaintext: Buffer): Buffer {
  const iv = randomBytes(IV);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.of(format), iv, cipher.getAuthTag(), ct]);
}

/** Opens a blob of `sealAesGcm`; throws on another format, a wrong key or AAD, or any tampering. */
export function openAesGcm(key: Buffer, format: number, aad: string, blob: Buffer): Buffer {
  if (blob.length < 1 + IV + TAG || blob[0] !== format) throw new Error('wrapped key has an unknown format');
  const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(1, 1 + IV));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(blob.subarray(1 + IV, 1 + IV + TAG));
  return Buffer.concat([decipher.update(blob.subarray(1 + IV + TAG)), decipher.final()]);
}
