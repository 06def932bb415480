import { createCipheriv, createDecipheriv } from 'node:crypto';

const FORMAT = 0x02;
const HEADER = 1 + 4; // format | key version
const RFC3394_IV = Buffer.from('A6A6A6A6A6A6A6A6', 'hex');

const cipherName = (secret: Buffer) => `id-aes${secret.length * 8}-wrap`;

export function wrappedVersion(blob: Buffer): number | undefined {
  return blob.length > HEADER && blob[0] === FORMAT ? blob.readUInt32BE(1) : undefined;
}

/** AES Key Wrap (RFC 3394) of a data key; the blob names the key version that wrapped it. */
export function wrapKey(secret: Buffer, version: number, dek: Buffer): Buffer {
  const cipher = createCipheriv(cipherName(secret), secret, RFC3394_IV);
  const wrapped = Buffer.concat([cipher.update(dek), cipher.final()]);
  const header = Buffer.allocUnsafe(HEADER);
  header[0] = FORMAT;
  header.writeUInt32BE(version, 1);
  return Buffer.concat([header, wrapped]);
}

/** Throws when the integrity check fails (another key, another version, tampered bytes). */
export function unwrapKey(secret: Buffer, blob: Buffer): Buffer {
  const decipher = createDecipheriv(cipherName(secret), secret, RFC3394_IV);
  return Buffer.concat([decipher.update(blob.subarray(HEADER)), decipher.final()]);
}
