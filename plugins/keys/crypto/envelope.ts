import { createCipheriv, createDecipheriv } from 'node:crypto';
import { IvPool } from './iv-pool.ts';

const FORMAT = 0x01;
const HEADER = 1 + 4 + 12 + 16; // format | key version | IV | tag

const ivs = new IvPool();

/** Keys sorted, UTF-8 JSON: the same context always gives the same bytes. */
export function canonicalContext(context: Record<string, string>): string {
  return JSON.stringify(Object.keys(context).sort().map((k) => [k, context[k]]));
}

const aad = (keyId: string, version: number, context: Record<string, string>) => Buffer.from(`svc-kms/v1|${keyId}|${version}|${canonicalContext(context)}`);

/** The key version an envelope names, or undefined when the bytes are not an envelope. */
export function envelopeVersion(envelope: Buffer): number | undefined {
  return envelope.length >= HEADER && envelope[0] === FORMAT ? envelope.readUInt32BE(1) : undefined;
}

/** AES-GCM: format byte, key version (uint32 BE), 96-bit IV, 128-bit tag, ciphertext. AAD binds key id, version and context. */
export function seal(secret: Buffer, keyId: string, version: number, context: Record<string, string>, plaintext: Buffer): Buffer {
  const iv = ivs.next();
  const cipher = createCipheriv(`aes-${secret.length * 8}-gcm` as 'aes-256-gcm', secret, iv);
  cipher.setAAD(aad(keyId, version, context));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const header = Buffer.allocUnsafe(HEADER);
  header[0] = FORMAT;
  header.writeUInt32BE(version, 1);
  iv.copy(header, 5);
  cipher.getAuthTag().copy(header, 17);
  return Buffer.concat([header, ct]);
}

/** Throws on any mismatch; the caller turns every failure into one DecryptionFailed (no oracle). */
export function open(secret: Buffer, keyId: string, version: number, context: Record<string, string>, envelope: Buffer): Buffer {
  const decipher = createDecipheriv(`aes-${secret.length * 8}-gcm` as 'aes-256-gcm', secret, envelope.subarray(5, 17));
  decipher.setAAD(aad(keyId, version, context));
  decipher.setAuthTag(envelope.subarray(17, HEADER));
  return Buffer.concat([decipher.update(envelope.subarray(HEADER)), decipher.final()]);
}
