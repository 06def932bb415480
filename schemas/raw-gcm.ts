import { Type } from '@sinclair/typebox';
import * as S from './keys.ts';

const B64 = (description: string) => Type.String({ description: `${description} (standard base64)` });

export const RawEncryptBody = Type.Object(
  {
    plaintextBase64: B64('plaintext, at most 64 KiB decoded'),
    aadBase64: Type.Optional(
      B64('additional authenticated data: bound to the ciphertext as it is; decrypt must present the same bytes'),
    ),
  },
  { additionalProperties: false, title: 'RawEncryptRequest' },
);
export const RawEncryptInput = Type.Object(
  { id: S.KeyId, ...RawEncryptBody.properties },
  { additionalProperties: false, title: 'RawEncryptInput' },
);
export const RawEncryptResponse = Type.Object(
  {
    ciphertextBase64: B64('the AES-GCM ciphertext alone, as long as the plaintext'),
    ivBase64: B64(
      'the 12-byte IV the service drew for it (callers never choose IVs: a ' +
        'repeated IV would let anyone allowed to encrypt read and forge ' +
        'ciphertexts of the key)',
    ),
    tagBase64: B64('the 16-byte GCM authentication tag'),
    keyVersion: Type.Integer({ description: 'the key version that encrypted' }),
    algorithm: Type.String({ description: 'AesGcm128, AesGcm192 or AesGcm256' }),
  },
  { title: 'RawEncryptResponse' },
);

export const RawDecryptBody = Type.Object(
  {
    ciphertextBase64: B64('the AES-GCM ciphertext alone'),
    ivBase64: B64('the 12-byte IV it was sealed with'),
    tagBase64: B64('the 16-byte GCM authentication tag'),
    aadBase64: Type.Optional(B64('the additional authenticated data it was sealed with')),
    keyVersion: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'the version that encrypted; default: each version still held, newest first',
      }),
    ),
  },
  { additionalProperties: false, title: 'RawDecryptRequest' },
);
export const RawDecryptInput = Type.Object(
  { id: S.KeyId, ...RawDecryptBody.properties },
  { additionalProperties: false, title: 'RawDecryptInput' },
);
export const RawDecryptResponse = Type.Object(
  {
    plaintextBase64: B64('plaintext'),
    keyVersion: Type.Integer({ description: 'the key version that decrypted' }),
  },
  { title: 'RawDecryptResponse' },
);
