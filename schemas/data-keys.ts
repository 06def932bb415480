import { Type } from '@sinclair/typebox';
import * as S from './keys.ts';

const B64 = (description: string) => Type.String({ description: `${description} (standard base64)` });
const Context = Type.Record(Type.String(), Type.String(), {
  description: 'Encryption context, bound as AAD; decrypt must present the same one',
});

export const DataKeyBody = Type.Object(
  {
    // An enum rather than a union of literals: a refused size then reads "sizeBits must be one of 128, 192, 256".
    sizeBits: Type.Optional(
      Type.Unsafe<128 | 192 | 256>({
        type: 'integer',
        enum: [128, 192, 256],
        description: 'size of the data key: 128, 192 or 256 (default 256)',
      }),
    ),
    context: Type.Optional(Context),
    plaintext: Type.Optional(
      Type.Boolean({
        description: 'false: answer only the encrypted data key, for a caller that stores it for later (default true)',
      }),
    ),
  },
  { additionalProperties: false, title: 'DataKeyRequest' },
);
export const DataKeyInput = Type.Object(
  { id: S.KeyId, ...DataKeyBody.properties },
  { additionalProperties: false, title: 'DataKeyInput' },
);
export const DataKeyResponse = Type.Object(
  {
    ciphertextBase64: B64(
      'the data key encrypted under the key: an envelope that POST /v1/keys/{id}/decrypt opens with the same context',
    ),
    plaintextBase64: Type.Optional(B64('the data key; absent when plaintext is false')),
    keyVersion: Type.Integer(),
    algorithm: Type.String({ description: 'the algorithm that encrypted the data key (AesGcm256, ...)' }),
  },
  { title: 'DataKeyResponse' },
);

export const ReencryptBody = Type.Object(
  {
    ciphertextBase64: B64('envelope from encrypt (or data-key) under this key'),
    context: Type.Optional(Context),
    destinationKeyId: Type.Optional(
      Type.String({ description: "the key to encrypt under (UUID); default this key's current version" }),
    ),
    destinationContext: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'the context bound to the new ciphertext; default the source context, ' +
          'so the new ciphertext decrypts as the old one did',
      }),
    ),
  },
  { additionalProperties: false, title: 'ReencryptRequest' },
);
export const ReencryptInput = Type.Object(
  { id: S.KeyId, ...ReencryptBody.properties },
  { additionalProperties: false, title: 'ReencryptInput' },
);
export const ReencryptResponse = Type.Object(
  {
    ciphertextBase64: B64('the envelope under the destination key'),
    keyVersion: Type.Integer({ description: 'the destination key version that encrypted it' }),
    sourceKeyVersion: Type.Integer({ description: 'the source key version that decrypted it' }),
  },
  { title: 'ReencryptResponse' },
);
