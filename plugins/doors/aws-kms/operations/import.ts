import { createPublicKey } from 'node:crypto';
import { SvcError } from '../../../../kernel/index.ts';
import type { AwsOperationDef } from '../aws-call.ts';
import { blob, text } from '../aws-input.ts';
import { keyArn, keyReference } from '../key-references.ts';
import { describe } from './keys.ts';

/**
 * AWS's import into a key made with Origin EXTERNAL: GetParametersForImport gives an RSA-3072 wrapping
 * key and a single-use token for the key's type, ImportKeyMaterial brings the material wrapped with
 * RSA_AES_KEY_WRAP_SHA_256 (RSA-OAEP SHA-256 of an AES key, then AES key wrap with padding). The token
 * travels as AWS's opaque ImportToken blob: the service's token text, base64-encoded.
 */
export const importOperations: Record<string, AwsOperationDef> = {
  GetParametersForImport: {
    primary: 'GetImportParameters',
    run: async (input, call) => {
      const key = await describe(input, call);
      const { result } = await call.run<{ importToken: string; wrappingPublicKeyPem: string; expiresAt: string }>(
        'GetImportParameters',
        () => {
          const algorithm = text(input, 'WrappingAlgorithm');
          if (algorithm !== 'RSA_AES_KEY_WRAP_SHA_256')
            throw new SvcError('InvalidField', 'WrappingAlgorithm must be RSA_AES_KEY_WRAP_SHA_256 here');
          if (text(input, 'WrappingKeySpec') !== 'RSA_3072')
            throw new SvcError('InvalidField', 'WrappingKeySpec must be RSA_3072 here');
          if (!key.awaitingMaterial)
            throw new SvcError(
              'IllegalOperation',
              `key ${key.id} has its material; import goes into a key made with Origin EXTERNAL`,
            );
          return {
            algorithm: key.spec.algorithm,
            sizeBits: key.spec.sizeBits,
            ...(key.spec.curve ? { curve: key.spec.curve } : {}),
          };
        },
      );
      return {
        KeyId: keyArn(call, key.id),
        ImportToken: Buffer.from(result.importToken).toString('base64'),
        PublicKey: createPublicKey(result.wrappingPublicKeyPem)
          .export({ type: 'spki', format: 'der' })
          .toString('base64'),
        ParametersValidTo: Date.parse(result.expiresAt) / 1000,
      };
    },
  },
  ImportKeyMaterial: {
    primary: 'ImportKeyMaterial',
    run: async (input, call) => {
      await call.run('ImportKeyMaterial', () => {
        const model = text(input, 'ExpirationModel', 'optional');
        if (model !== undefined && model !== 'KEY_MATERIAL_DOES_NOT_EXPIRE')
          throw new SvcError(
            'FeatureNotSupported',
            'imported material does not expire here: ExpirationModel KEY_MATERIAL_DOES_NOT_EXPIRE',
          );
        return {
          id: keyReference(call, text(input, 'KeyId')),
          importToken: Buffer.from(blob(input, 'ImportToken'), 'base64').toString('utf8'),
          wrappedMaterialBase64: blob(input, 'EncryptedKeyMaterial'),
          activate: true,
        };
      });
      return {};
    },
  },
};
