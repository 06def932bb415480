import { Buffer } from 'node:buffer';
import { constants, createCipheriv, publicEncrypt, randomBytes } from 'node:crypto';

/** RFC 5649's alternative initial value, which node:crypto's id-aes256-wrap-pad takes as its IV. */
const KWP_IV = Buffer.from('A65959A6', 'hex');

/**
 * Wraps key material for `POST /v1/keys/import` (RSA_AES_KEY_WRAP_SHA_256, as AWS KMS, Google Cloud
 * KMS and Vault accept it): a fresh AES-256 key, RSA-OAEP-SHA-256 (MGF1 SHA-256) encrypted under the
 * import parameters' wrapping public key, followed by the material under that AES key with AES key
 * wrap with padding (RFC 5649). `material` is the raw secret for AES and HMAC, the private key as
 * unencrypted PKCS#8 DER for RSA, EC and EdDSA. The AES key is zeroed before this returns.
 */
export function wrapKeyMaterial(wrappingPublicKeyPem: string, material: Uint8Array): Uint8Array {
  const aesKey = randomBytes(32);
  try {
    const encryptedKey = publicEncrypt(
      { key: wrappingPublicKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      aesKey,
    );
    const cipher = createCipheriv('id-aes256-wrap-pad', aesKey, KWP_IV);
    return Buffer.concat([encryptedKey, cipher.update(material), cipher.final()]);
  } finally {
    aesKey.fill(0);
  }
}
