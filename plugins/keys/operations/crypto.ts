import { type AnyOperation, defineOperation, keyResource, SvcError } from '../../../kernel/index.ts';
import * as S from '../../../schemas/keys.ts';
import { KEY_DESCRIPTIONS } from './descriptions.ts';
import { decodeBase64 } from '../base64.ts';
import type { KeyCrypto } from '../key-crypto.ts';
import { inputContext, signedDataOf } from './signed-input.ts';

const byKey = (input: { id?: unknown } | undefined) => keyResource(input?.id);
const b64 = (buf: Buffer) => buf.toString('base64');
const STATE_ERRORS = ['KeyNotFound', 'IllegalOperation'] as const;
// The names of the context's keys, never its values: encrypt rows record which context keys were given.
const contextKeys = (context: Record<string, string> | undefined) => ({
  contextKeys: context ? Object.keys(context).sort().join(',') : '',
});

/** Sign, verify, encrypt, decrypt, wrap and unwrap under a key. */
export function cryptoOperations(crypto: KeyCrypto): AnyOperation[] {
  return [
    defineOperation({
      id: 'Sign',
      description: KEY_DESCRIPTIONS.Sign,
      operation: 'Sign',
      group: 'Crypto',
      summary: 'Sign a message, or the digest of one, with the current version',
      errors: [...STATE_ERRORS],
      input: S.SignInput,
      output: S.SignResponse,
      http: { method: 'POST', path: '/v1/keys/:id/sign' },
      resource: byKey,
      handle: async (input, call) => {
        const data = signedDataOf(input);
        const r = await crypto.sign(input.id, data, input.algorithm, call.trace);
        return {
          result: { signatureBase64: b64(r.signature), algorithm: r.algorithm, keyVersion: r.keyVersion },
          audit: { context: { keyVersion: String(r.keyVersion), alg: r.algorithm, ...inputContext(data) } },
        };
      },
    }),
    defineOperation({
      id: 'Verify',
      description: KEY_DESCRIPTIONS.Verify,
      operation: 'Verify',
      group: 'Crypto',
      summary: 'Verify a signature (200 with valid:false when it does not match)',
      errors: [...STATE_ERRORS],
      input: S.VerifyInput,
      output: S.VerifyResponse,
      http: { method: 'POST', path: '/v1/keys/:id/verify' },
      resource: byKey,
      attributes: { readOnly: true },
      handle: async (input, call) => {
        const data = signedDataOf(input);
        const signature = decodeBase64(input.signatureBase64, 'signatureBase64');
        const r = await crypto.verify(input.id, data, signature, input.algorithm, input.keyVersion, call.trace);
        const context: Record<string, string> = r.keyVersion
          ? { alg: r.algorithm, keyVersion: String(r.keyVersion), ...inputContext(data) }
          : { alg: r.algorithm, ...inputContext(data) };
        return { result: r, audit: { context, ...(r.valid ? {} : { outcome: 'InvalidSignature' }) } };
      },
    }),
    defineOperation({
      id: 'Encrypt',
      description: KEY_DESCRIPTIONS.Encrypt,
      operation: 'Encrypt',
      group: 'Crypto',
      summary: 'AES-GCM encrypt, context bound as AAD',
      errors: [...STATE_ERRORS],
      input: S.EncryptInput,
      output: S.EncryptResponse,
      http: { method: 'POST', path: '/v1/keys/:id/encrypt' },
      resource: byKey,
      inputFacts: (input) => contextKeys(input.context),
      handle: async (input, call) => {
        const plaintext = decodeBase64(input.plaintextBase64, 'plaintextBase64');
        const r = await crypto.encrypt(input.id, plaintext, input.context ?? {}, call.trace);
        return {
          result: { ciphertextBase64: b64(r.ciphertext), keyVersion: r.keyVersion, algorithm: r.algorithm },
          audit: {
            context: { keyVersion: String(r.keyVersion), alg: r.algorithm, plaintextLength: String(plaintext.length) },
          },
        };
      },
    }),
    defineOperation({
      id: 'Decrypt',
      description: KEY_DESCRIPTIONS.Decrypt,
      operation: 'Decrypt',
      group: 'Crypto',
      summary: 'Decrypt an envelope (the same context as encrypt)',
      errors: [...STATE_ERRORS, 'DecryptionFailed'],
      input: S.DecryptInput,
      output: S.DecryptResponse,
      http: { method: 'POST', path: '/v1/keys/:id/decrypt' },
      resource: byKey,
      inputFacts: (input) => contextKeys(input.context),
      handle: async (input, call) => {
        const r = await crypto.decrypt(
          input.id,
          decodeBase64(input.ciphertextBase64, 'ciphertextBase64'),
          input.context ?? {},
          call.trace,
        );
        return {
          result: { plaintextBase64: b64(r.plaintext), keyVersion: r.keyVersion },
          audit: { context: { keyVersion: String(r.keyVersion) } },
        };
      },
    }),
    defineOperation({
      id: 'Wrap',
      description: KEY_DESCRIPTIONS.Wrap,
      operation: 'Wrap',
      group: 'Crypto',
      summary: 'Wrap a data key (AES key wrap); accepts dekBase64 or plaintextBase64',
      errors: [...STATE_ERRORS],
      input: S.WrapInput,
      output: S.WrapResponse,
      http: { method: 'POST', path: '/v1/keys/:id/wrap' },
      resource: byKey,
      attributes: { toolName: 'wrap_key' },
      handle: async (input, call) => {
        const field = input.dekBase64 !== undefined ? 'dekBase64' : 'plaintextBase64';
        const text = input.dekBase64 ?? input.plaintextBase64;
        if (text === undefined) throw new SvcError('BadRequest', 'request is missing required field "dekBase64"');
        const dek = decodeBase64(text, field);
        const r = await crypto.wrap(input.id, dek, call.trace);
        return {
          result: { wrappedDekBase64: b64(r.wrapped), keyVersion: r.keyVersion, algorithm: r.algorithm },
          audit: { context: { keyVersion: String(r.keyVersion), alg: r.algorithm, dekLen: String(dek.length) } },
        };
      },
    }),
    defineOperation({
      id: 'Unwrap',
      description: KEY_DESCRIPTIONS.Unwrap,
      operation: 'Unwrap',
      group: 'Crypto',
      summary: 'Unwrap a data key; accepts wrappedDekBase64 or wrappedKeyBase64',
      errors: [...STATE_ERRORS, 'DecryptionFailed'],
      input: S.UnwrapInput,
      output: S.UnwrapResponse,
      http: { method: 'POST', path: '/v1/keys/:id/unwrap' },
      resource: byKey,
      attributes: { toolName: 'unwrap_key' },
      handle: async (input, call) => {
        const field = input.wrappedDekBase64 !== undefined ? 'wrappedDekBase64' : 'wrappedKeyBase64';
        const text = input.wrappedDekBase64 ?? input.wrappedKeyBase64;
        if (text === undefined)
          throw new SvcError('BadRequest', 'request is missing required field "wrappedDekBase64"');
        const r = await crypto.unwrap(input.id, decodeBase64(text, field), call.trace);
        return {
          result: { dekBase64: b64(r.dek), keyVersion: r.keyVersion },
          audit: { context: { keyVersion: String(r.keyVersion) } },
        };
      },
    }),
  ];
}
