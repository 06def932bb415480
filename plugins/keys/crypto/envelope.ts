import { createCipheriv, createDecipheriv } from 'node:crypto';
import { IvPool } from './iv-pool.ts';

const FORMAT = 0x01;
const HEADER = 1 + 4 + 12 + 16; // format | key version | IV | tag

const ivs = new IvPool();
const GCM_BY_KEY_BYTES: Record<number, 'aes-128-gcm' | 'aes-192-gcm' | 'aes-256-gcm'> = {
  16: 'aes-128-gcm',
  24: 'aes-192-gcm',
  32: 'aes-256-gcm',
};

/** Keys sorted, UTF-8 JSON: the same context always gives the same bytes. */
export function canonicalContext(context: Record<string, string>): string {
  const keys = Object.keys(context);
  if (keys.length === 0) return '[]'; // most calls carry no context
  return JSON.stringify(keys.sort().map((k) => [k, context[k]]));
}

const aad = (keyId: string, version: number, context: Record<string, string>) =>
  Buffer.from(`svc-kms/v1|${keyId}|${version}|${canonicalContext(context)}`);

/** The key version an envelope names, or undefined when the bytes are not an envelope. */
export function envelopeVersion(envelope: Buffer): number | undefined {
  return envelope.length >= HEADER && envelope[0] === FORMAT ? envelope.readUInt32BE(1) : undefined;
}

/**
 * AES-GCM: format byte, key version (uint32 BE), 96-bit IV, 128-bit tag, ciphertext. AAD binds key id, version and
 * context.
 */
export function seal(
  secret: Buffer,
  keyId: string,
  version: number,
  context: Record<string, string>,
  plaintext: Buffer,
): Buffer {
  const iv = ivs.next();
  const cipher = createCipheriv(GCM_BY_KEY_BYTES[secret.length]!, secret, iv);
  cipher.setAAD(aad(keyId, version, context));
  // One output buffer: header, then ciphertext (GCM is a stream mode, so final() adds no bytes).
  const out = Buffer.allocUnsafe(HEADER + plaintext.length);
  out[0] = FORMAT;
  out.writeUInt32BE(version, 1);
  iv.copy(out, 5);
  cipher.update(plaintext).copy(out, HEADER);
  cipher.final();
  cipher.getAuthTag().copy(out, 17);
  return out;
}

/** Throws on any mismatch; the caller turns every failure into one DecryptionFailed (no oracle). */
export function open(
  secret: Buffer,
  keyId: string,
  version: number,
  context: Record<string, string>,
  envelope: Buffer,
): Buffer {
  const decipher = createDecipheriv(GCM_BY_KEY_BYTES[secret.length]!, secret, envelope.subarray(5, 17));
  decipher.setAAD(aad(keyId, version, context));
  decipher.setAuthTag(envelope.subarray(17, HEADER));
  return Buffer.concat([decipher.update(envelope.subarray(HEADER)), decipher.final()]);
}
