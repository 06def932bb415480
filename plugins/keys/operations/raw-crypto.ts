import { type AnyOperation, defineOperation, keyResource } from '../../../kernel/index.ts';
import * as R from '../../../schemas/raw-gcm.ts';
import { decodeBase64 } from '../base64.ts';
import type { KeyCrypto } from '../key-crypto.ts';

const byKey = (input: { id?: unknown } | undefined) => keyResource(input?.id);
const b64 = (buf: Buffer) => buf.toString('base64');
const STATE_ERRORS = ['KeyNotFound', 'IllegalOperation'] as const;
const optional = (text: string | undefined, field: string) =>
  text === undefined ? undefined : decodeBase64(text, field);

export const RAW_CRYPTO_DESCRIPTIONS = {
  RawEncrypt:
    "Encrypt plaintext (base64, at most 64 KiB) with an Active AES key's " +
    'current version as plain AES-GCM, answered in parts: the ciphertext, ' +
    'the 12-byte IV the service drew (callers never choose IVs) and the ' +
    "16-byte tag, with the caller's additional data bound as it is. For " +
    "clients that carry GCM's parts themselves (KMIP, PKCS#11-style code); " +
    "encrypt's envelope is the safer default. IllegalOperation when the key " +
    'is not Active, InvalidField when it is not AES.',
  RawDecrypt:
    'Decrypt AES-GCM parts (ciphertext, 12-byte IV, 16-byte tag, additional ' +
    'data) made by raw-encrypt or by any GCM implementation under this ' +
    "key's material. Without keyVersion each version still held is tried, " +
    'newest first. Works on Active and Deactivated keys. Returns the ' +
    'plaintext and the version. DecryptionFailed when the parts, key or ' +
    'additional data do not match.',
} as const;

/**
 * AES-GCM in parts, beside encrypt's envelope: the same key, state checks, rotation and audit, but the IV
 * and tag travel separately and nothing of the service's is bound, so standard clients (the KMIP door's
 * Encrypt and Decrypt) interoperate. Kept off the MCP door: a model handling nonces itself is a footgun,
 * and encrypt/decrypt serve it.
 */
export function rawCryptoOperations(crypto: KeyCrypto): AnyOperation[] {
  return [
    defineOperation({
      id: 'RawEncrypt',
      description: RAW_CRYPTO_DESCRIPTIONS.RawEncrypt,
      operation: 'Encrypt',
      group: 'Crypto',
      summary: 'AES-GCM encrypt answered in parts (ciphertext, IV, tag), additional data bound as given',
      errors: [...STATE_ERRORS],
      input: R.RawEncryptInput,
      output: R.RawEncryptResponse,
      http: { method: 'POST', path: '/v1/keys/:id/raw-encrypt' },
      resource: byKey,
      attributes: { toolName: false },
      inputFacts: (input) => ({ raw: 'true', aad: String(input.aadBase64 !== undefined) }),
      handle: async (input, call) => {
        const plaintext = decodeBase64(input.plaintextBase64, 'plaintextBase64');
        const aad = optional(input.aadBase64, 'aadBase64') ?? Buffer.alloc(0);
        const r = await crypto.encryptRaw(input.id, plaintext, aad, call.trace);
        return {
          result: {
            ciphertextBase64: b64(r.ciphertext),
            ivBase64: b64(r.iv),
            tagBase64: b64(r.tag),
            keyVersion: r.keyVersion,
            algorithm: r.algorithm,
          },
          audit: {
            context: { keyVersion: String(r.keyVersion), alg: r.algorithm, plaintextLength: String(plaintext.length) },
          },
        };
      },
    }),
    defineOperation({
      id: 'RawDecrypt',
      description: RAW_CRYPTO_DESCRIPTIONS.RawDecrypt,
      operation: 'Decrypt',
      group: 'Crypto',
      summary: 'Decrypt AES-GCM parts (ciphertext, IV, tag, additional data)',
      errors: [...STATE_ERRORS, 'DecryptionFailed'],
      input: R.RawDecryptInput,
      output: R.RawDecryptResponse,
      http: { method: 'POST', path: '/v1/keys/:id/raw-decrypt' },
      resource: byKey,
      attributes: { toolName: false },
      inputFacts: (input) => ({ raw: 'true', aad: String(input.aadBase64 !== undefined) }),
      handle: async (input, call) => {
        const ciphertext = decodeBase64(input.ciphertextBase64, 'ciphertextBase64');
        const iv = decodeBase64(input.ivBase64, 'ivBase64');
        const tag = decodeBase64(input.tagBase64, 'tagBase64');
        const aad = optional(input.aadBase64, 'aadBase64') ?? Buffer.alloc(0);
        const r = await crypto.decryptRaw(input.id, ciphertext, iv, tag, aad, input.keyVersion, call.trace);
        return {
          result: { plaintextBase64: b64(r.plaintext), keyVersion: r.keyVersion },
          audit: { context: { keyVersion: String(r.keyVersion) } },
        };
      },
    }),
  ];
}
