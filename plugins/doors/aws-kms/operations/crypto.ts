import { ciphertextKeyId, isSvcError, nameCiphertext, SvcError } from '../../../../kernel/index.ts';
import type { AwsCall, AwsOperationDef } from '../aws-call.ts';
import { AwsError } from '../aws-errors.ts';
import { blob, integer, stringMap, text, type AwsInput } from '../aws-input.ts';
import { keyArn, keyReference } from '../key-references.ts';

const SYMMETRIC = 'SYMMETRIC_DEFAULT';
const DATA_KEY_BITS: Record<string, number> = { AES_128: 128, AES_256: 256 };

/** AWS's asymmetric encryption algorithms: valid names, but every key that encrypts here is symmetric. */
const ASYMMETRIC_ENCRYPTION = ['RSAES_OAEP_SHA_1', 'RSAES_OAEP_SHA_256', 'SM2PKE'];

function symmetricOnly(input: AwsInput, field: string): void {
  const algorithm = text(input, field, 'optional');
  if (algorithm === undefined || algorithm === SYMMETRIC) return;
  // AWS: an algorithm that does not fit the key's KeySpec is InvalidKeyUsageException; an unknown name, ValidationException.
  if (ASYMMETRIC_ENCRYPTION.includes(algorithm))
    throw new AwsError(
      'InvalidKeyUsageException',
      `${field} ${algorithm} does not fit a symmetric key; use ${SYMMETRIC} (RSA keys here do not encrypt)`,
    );
  throw new SvcError('InvalidField', `${field} must be ${SYMMETRIC}: RSA keys here do not encrypt`);
}

/** The service's envelope as a CiphertextBlob that names its key, so Decrypt needs no KeyId. */
const named = (keyId: string, ciphertextBase64: string) =>
  nameCiphertext(keyId, Buffer.from(ciphertextBase64, 'base64')).toString('base64');

/**
 * The key to decrypt a CiphertextBlob under: the one it names; a KeyId, when given, must name that key
 * too: a key id or key ARN is compared here (IncorrectKeyException); an alias is the call's key, which
 * the pipeline resolves and authorizes, and the service then refuses a blob naming another key
 * (InvalidCiphertextException). A blob that names no key (a REST envelope) needs the KeyId.
 */
function sourceKey(call: AwsCall, ciphertext: string, keyIdField: string, input: AwsInput): string {
  const inBlob = ciphertextKeyId(Buffer.from(ciphertext, 'base64'));
  const given = text(input, keyIdField, 'optional');
  const reference = given === undefined ? undefined : keyReference(call, given);
  if (inBlob !== undefined && reference !== undefined && !reference.startsWith('alias/') && reference !== inBlob)
    throw new AwsError('IncorrectKeyException', `the ciphertext was made under another key than ${given}`);
  const key = reference?.startsWith('alias/') ? reference : (inBlob ?? reference);
  if (key === undefined)
    throw new SvcError(
      'DecryptionFailed',
      `the ciphertext names no key: give ${keyIdField} (a ciphertext made over REST)`,
    );
  return key;
}

/**
 * A CiphertextBlob names its key in its first bytes, so one whose name was altered names a key that
 * does not exist. AWS answers a ciphertext with any altered byte InvalidCiphertextException, and so does
 * the door: NotFoundException would also tell the caller which key ids exist. A KeyId the caller gave
 * that names no key stays NotFoundException.
 */
async function corruptedIfUnknown<T>(input: AwsInput, keyIdField: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const blobText = input.CiphertextBlob;
    const inBlob = typeof blobText === 'string' ? ciphertextKeyId(Buffer.from(blobText, 'base64')) : undefined;
    const given = input[keyIdField];
    if (
      inBlob !== undefined &&
      isSvcError(err) &&
      err.code === 'KeyNotFound' &&
      err.message.includes(inBlob) &&
      !(typeof given === 'string' && given.includes(inBlob))
    )
      throw new AwsError('InvalidCiphertextException', 'the ciphertext is corrupted: it names no key of this service');
    throw err;
  }
}

async function dataKey(input: AwsInput, call: AwsCall, plaintext: boolean) {
  const { result, input: ran } = await call.run<{ ciphertextBase64: string; plaintextBase64?: string }>(
    'GenerateDataKey',
    () => {
      const spec = text(input, 'KeySpec', 'optional');
      const bytes = integer(input, 'NumberOfBytes', 1, 1024);
      if ((spec === undefined) === (bytes === undefined))
        throw new SvcError('InvalidField', 'give exactly one of KeySpec (AES_128, AES_256) and NumberOfBytes');
      const sizeBits = spec !== undefined ? DATA_KEY_BITS[spec] : bytes! * 8;
      if (sizeBits === undefined || ![128, 192, 256].includes(sizeBits))
        throw new SvcError(
          'InvalidField',
          spec !== undefined ? 'KeySpec must be AES_128 or AES_256' : 'NumberOfBytes must be 16, 24 or 32 here',
        );
      const context = stringMap(input, 'EncryptionContext');
      return {
        id: keyReference(call, text(input, 'KeyId')),
        sizeBits,
        ...(context ? { context } : {}),
        ...(plaintext ? {} : { plaintext: false }),
      };
    },
  );
  const keyId = String(ran.id);
  return {
    CiphertextBlob: named(keyId, result.ciphertextBase64),
    ...(plaintext ? { Plaintext: result.plaintextBase64 } : {}),
    KeyId: keyArn(call, keyId),
  };
}

export const cryptoOperations: Record<string, AwsOperationDef> = {
  Encrypt: {
    primary: 'Encrypt',
    run: async (input, call) => {
      const { result, input: ran } = await call.run<{ ciphertextBase64: string }>('Encrypt', () => {
        symmetricOnly(input, 'EncryptionAlgorithm');
        const context = stringMap(input, 'EncryptionContext');
        return {
          id: keyReference(call, text(input, 'KeyId')),
          plaintextBase64: blob(input, 'Plaintext'),
          ...(context ? { context } : {}),
        };
      });
      const keyId = String(ran.id);
      return {
        CiphertextBlob: named(keyId, result.ciphertextBase64),
        KeyId: keyArn(call, keyId),
        EncryptionAlgorithm: SYMMETRIC,
      };
    },
  },
  Decrypt: {
    primary: 'Decrypt',
    run: async (input, call) => {
      const { result, input: ran } = await corruptedIfUnknown(input, 'KeyId', () =>
        call.run<{ plaintextBase64: string }>('Decrypt', () => {
          symmetricOnly(input, 'EncryptionAlgorithm');
          const ciphertext = blob(input, 'CiphertextBlob');
          const context = stringMap(input, 'EncryptionContext');
          return {
            id: sourceKey(call, ciphertext, 'KeyId', input),
            ciphertextBase64: ciphertext,
            ...(context ? { context } : {}),
          };
        }),
      );
      return { KeyId: keyArn(call, String(ran.id)), Plaintext: result.plaintextBase64, EncryptionAlgorithm: SYMMETRIC };
    },
  },
  ReEncrypt: {
    primary: 'Reencrypt',
    run: async (input, call) => {
      const { result, input: ran } = await corruptedIfUnknown(input, 'SourceKeyId', () =>
        call.run<{ ciphertextBase64: string }>('Reencrypt', () => {
          symmetricOnly(input, 'SourceEncryptionAlgorithm');
          symmetricOnly(input, 'DestinationEncryptionAlgorithm');
          const ciphertext = blob(input, 'CiphertextBlob');
          const context = stringMap(input, 'SourceEncryptionContext');
          // AWS binds no context to the new ciphertext unless asked: an absent destination context is empty.
          const destinationContext = stringMap(input, 'DestinationEncryptionContext') ?? {};
          return {
            id: sourceKey(call, ciphertext, 'SourceKeyId', input),
            ciphertextBase64: ciphertext,
            ...(context ? { context } : {}),
            destinationKeyId: keyReference(call, text(input, 'DestinationKeyId')),
            destinationContext,
          };
        }),
      );
      const destination = String(ran.destinationKeyId);
      return {
        CiphertextBlob: named(destination, result.ciphertextBase64),
        SourceKeyId: keyArn(call, String(ran.id)),
        KeyId: keyArn(call, destination),
        SourceEncryptionAlgorithm: SYMMETRIC,
        DestinationEncryptionAlgorithm: SYMMETRIC,
      };
    },
  },
  GenerateDataKey: { primary: 'GenerateDataKey', run: (input, call) => dataKey(input, call, true) },
  GenerateDataKeyWithoutPlaintext: { primary: 'GenerateDataKey', run: (input, call) => dataKey(input, call, false) },
  GenerateRandom: {
    primary: 'GenerateRandom',
    run: async (input, call) => {
      const { result } = await call.run<{ randomBase64: string }>('GenerateRandom', () => {
        if (text(input, 'CustomKeyStoreId', 'optional') !== undefined)
          throw new SvcError('FeatureNotSupported', 'custom key stores are not offered');
        const bytes = integer(input, 'NumberOfBytes', 1, 1024);
        if (bytes === undefined) throw new SvcError('InvalidField', 'NumberOfBytes is required (1..1024)');
        return { sizeBytes: bytes };
      });
      return { Plaintext: result.randomBase64 };
    },
  },
};
