import { randomBytes } from 'node:crypto';
import { isAccessKeyId } from '../../kernel/index.ts';

/** RFC 4648's base32 alphabet: what AWS access key ids are written in after their prefix. */
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** How many random bytes a secret access key has. */
export const SECRET_BYTES = 32;

/** A new access key id: `AKSV` and 80 random bits as 16 base32 characters. */
export function newAccessKeyId(): string {
  const bytes = randomBytes(10);
  let bits = 0;
  let value = 0;
  let out = 'AKSV';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (!isAccessKeyId(out)) throw new Error('access key id generation made an id of the wrong form');
  return out;
}

/**
 * A new secret: 32 random bytes. The text a client signs with is their base64url form without padding
 * (43 characters), which survives every shell, config file and environment variable unquoted.
 */
export function newSecret(): Buffer {
  return randomBytes(SECRET_BYTES);
}

export const secretText = (secret: Buffer): string => secret.toString('base64url');
