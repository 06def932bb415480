import { constants, createDecipheriv, generateKeyPair, type KeyObject, privateDecrypt } from 'node:crypto';
import { promisify } from 'node:util';
import { SvcError } from '../../../kernel/index.ts';

const generateKeyPairAsync = promisify(generateKeyPair);

/** The one wrapping scheme import accepts, named as AWS KMS names it. */
export const WRAPPING_ALGORITHM = 'RSA_AES_KEY_WRAP_SHA_256' as const;
/** RSA-3072: its OAEP ciphertext, the first part of a wrapped material, is this many bytes. */
export const WRAPPING_KEY_BITS = 3072;
const RSA_CIPHERTEXT_BYTES = WRAPPING_KEY_BITS / 8;
/** RFC 5649's alternative initial value: node:crypto's id-aes256-wrap-pad takes it as the IV. */
const KWP_IV = Buffer.from('A65959A6', 'hex');

/** A fresh RSA-3072 wrapping key pair (in the thread pool: generating one takes a large fraction of a second). */
export async function newWrappingKeyPair(): Promise<{ publicKeyPem: string; privateKeyDer: Buffer }> {
  const pair = await generateKeyPairAsync('rsa', { modulusLength: WRAPPING_KEY_BITS, publicExponent: 0x10001 });
  return {
    publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    privateKeyDer: pair.privateKey.export({ type: 'pkcs8', format: 'der' }),
  };
}

/**
 * Opens RSA_AES_KEY_WRAP_SHA_256: the first 384 bytes are RSA-OAEP (SHA-256, MGF1 SHA-256) of a
 * 32-byte AES key, the rest is the material under that key with AES key wrap with padding (RFC 5649).
 * Every way it can fail answers the same message: a caller learns nothing about which step failed
 * (an OAEP decoding oracle needs exactly that), and the token is spent anyway, so the private key
 * decrypts one ciphertext at most.
 */
export function unwrapImportedMaterial(wrappingKey: KeyObject, wrapped: Buffer): Buffer {
  const refused = () =>
    new SvcError(
      'InvalidField',
      `wrappedMaterialBase64 does not open with this import token's wrapping key: it must be RSA-OAEP-SHA-256 of a fresh AES-256 key (${RSA_CIPHERTEXT_BYTES} bytes) followed by that key's AES key wrap with padding (RFC 5649) of the material`,
    );
  if (wrapped.length < RSA_CIPHERTEXT_BYTES + 16) throw refused();
  let aesKey: Buffer | undefined;
  try {
    aesKey = privateDecrypt(
      { key: wrappingKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      wrapped.subarray(0, RSA_CIPHERTEXT_BYTES),
    );
    if (aesKey.length !== 32) throw refused();
    const decipher = createDecipheriv('id-aes256-wrap-pad', aesKey, KWP_IV);
    return Buffer.concat([decipher.update(wrapped.subarray(RSA_CIPHERTEXT_BYTES)), decipher.final()]);
  } catch {
    throw refused();
  } finally {
    aesKey?.fill(0);
  }
}
