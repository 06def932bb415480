import { randomBytes } from 'node:crypto';
import {
  type AnyOperation,
  defineOperation,
  keyResource,
  type ResourceFacts,
  SvcError,
} from '../../../kernel/index.ts';
import * as D from '../../../schemas/data-keys.ts';
import { decodeBase64 } from '../base64.ts';
import type { KeyCrypto } from '../key-crypto.ts';

const byKey = (input: { id?: unknown } | undefined) => keyResource(input?.id);
const STATE_ERRORS = ['KeyNotFound', 'IllegalOperation'] as const;
const contextKeys = (context: Record<string, string> | undefined) =>
  context ? Object.keys(context).sort().join(',') : '';

export const DATA_KEY_DESCRIPTIONS = {
  GenerateDataKey:
    'Make a fresh random data key (128, 192 or 256 bits) for envelope ' +
    'encryption: encrypt large data locally with it and store its ' +
    'ciphertext beside the data. Returns the data key (base64; left out ' +
    'with plaintext:false) and the same key encrypted under an Active AES ' +
    "key's current version; decrypt gives the data key back from that " +
    'ciphertext with the same context. IllegalOperation when the key is not ' +
    'Active, InvalidField when it is not AES.',
  Reencrypt:
    "Move a ciphertext to another key, or to this key's current version " +
    'after a rotation, without the plaintext leaving the service: decrypts ' +
    'with this key and the context, encrypts under the destination key ' +
    '(default this one) and the destination context (default the same ' +
    'context). Needs Decrypt on this key and Encrypt on the destination. ' +
    'Returns the new ciphertext, the destination version and the version ' +
    'that decrypted. DecryptionFailed when the ciphertext or context does not match.',
} as const;

/** Data keys and re-encryption: a data key's plaintext is made in the service; a re-encryption's never leaves it. */
export function dataKeyOperations(
  crypto: KeyCrypto,
  factsOf: (id: unknown) => Promise<ResourceFacts | undefined>,
): AnyOperation[] {
  return [
    defineOperation({
      id: 'GenerateDataKey',
      description: DATA_KEY_DESCRIPTIONS.GenerateDataKey,
      operation: 'Encrypt',
      group: 'Crypto',
      summary: 'A fresh data key, with its ciphertext under the key (envelope encryption)',
      errors: [...STATE_ERRORS],
      input: D.DataKeyInput,
      output: D.DataKeyResponse,
      http: { method: 'POST', path: '/v1/keys/:id/data-key' },
      resource: byKey,
      inputFacts: (input) => ({
        dataKey: 'true',
        contextKeys: contextKeys(input.context),
        sizeBits: String(input.sizeBits ?? 256),
        plaintext: String(input.plaintext !== false),
      }),
      handle: async (input, call) => {
        const dataKey = randomBytes((input.sizeBits ?? 256) / 8);
        try {
          const r = await crypto.encrypt(input.id, dataKey, input.context ?? {}, call.trace);
          return {
            result: {
              ciphertextBase64: r.ciphertext.toString('base64'),
              ...(input.plaintext === false ? {} : { plaintextBase64: dataKey.toString('base64') }),
              keyVersion: r.keyVersion,
              algorithm: r.algorithm,
            },
            audit: { context: { keyVersion: String(r.keyVersion), alg: r.algorithm } },
          };
        } finally {
          dataKey.fill(0);
        }
      },
    }),
    defineOperation({
      id: 'Reencrypt',
      description: DATA_KEY_DESCRIPTIONS.Reencrypt,
      operation: 'Decrypt',
      group: 'Crypto',
      summary: 'Decrypt and encrypt again under a key (default this one, current version) inside the service',
      errors: [...STATE_ERRORS, 'DecryptionFailed'],
      input: D.ReencryptInput,
      output: D.ReencryptResponse,
      http: { method: 'POST', path: '/v1/keys/:id/reencrypt' },
      resource: byKey,
      attributes: { alsoNeeds: ['Encrypt'] },
      inputFacts: (input) => ({
        reencrypt: 'true',
        contextKeys: contextKeys(input.context),
        destinationKeyId: keyResource(input.destinationKeyId ?? input.id),
        destinationContextKeys: contextKeys(input.destinationContext ?? input.context),
      }),
      handle: async (input, call) => {
        // The pipeline authorized Decrypt on this key; Encrypt on the destination is asked here, before
        // anything is decrypted, with the destination's facts for key-scoped bindings.
        const destination = input.destinationKeyId ?? input.id;
        const resource = keyResource(destination);
        if (!call.permits('Encrypt', resource, await factsOf(destination))) {
          throw new SvcError(
            'PermissionDenied',
            // The key as the caller named it is in its request: the message never names the key an alias led to.
            `${call.principal.subject} is not allowed to Encrypt under the destination key (destinationKeyId)`,
          );
        }
        const source = await crypto.decrypt(
          input.id,
          decodeBase64(input.ciphertextBase64, 'ciphertextBase64'),
          input.context ?? {},
          call.trace,
        );
        try {
          const r = await crypto.encrypt(
            destination,
            source.plaintext,
            input.destinationContext ?? input.context ?? {},
            call.trace,
          );
          return {
            result: {
              ciphertextBase64: r.ciphertext.toString('base64'),
              keyVersion: r.keyVersion,
              sourceKeyVersion: source.keyVersion,
            },
            audit: {
              context: {
                keyVersion: String(r.keyVersion),
                sourceKeyVersion: String(source.keyVersion),
                alg: r.algorithm,
              },
            },
          };
        } finally {
          source.plaintext.fill(0);
        }
      },
    }),
  ];
}
