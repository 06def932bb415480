import { Type } from '@sinclair/typebox';
import { EC_CURVES, ED_CURVES, KEY_ALGORITHMS, PARAMETER_SETS } from '../kernel/model/index.ts';
import { KeyId, KeySpecRequest } from './keys.ts';
import { StringEnum } from './string-enum.ts';

/** Export and import (bring your own key) of key material. */

export const ExportKeyBody = Type.Object(
  {
    version: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 999999999,
        description: 'the key version to export; default the current one',
      }),
    ),
  },
  { additionalProperties: false, title: 'ExportKeyRequest' },
);
export const ExportKeyInput = Type.Object(
  { id: KeyId, ...ExportKeyBody.properties },
  { additionalProperties: false, title: 'ExportKeyInput' },
);
export const ExportKeyResponse = Type.Object(
  {
    id: Type.String(),
    keyVersion: Type.Integer(),
    format: StringEnum(['raw', 'pkcs8-der'] as const, {
      description:
        'raw: the secret bytes (AES, HMAC); pkcs8-der: the private key as unencrypted PKCS#8 DER (RSA, EC, EdDSA, ML-DSA, SLH-DSA)',
    }),
    materialBase64: Type.String({ description: 'the key material (standard base64)' }),
  },
  { title: 'ExportKeyResponse' },
);

export const ImportParametersBody = Type.Object(
  {
    algorithm: StringEnum(KEY_ALGORITHMS),
    sizeBits: Type.Optional(
      Type.Integer({ description: 'as in a key spec: AES 128|192|256, HMAC 256|384|512, RSA 2048|3072|4096' }),
    ),
    curve: Type.Optional(
      StringEnum([...EC_CURVES, ...ED_CURVES], {
        description: 'as in a key spec: EC P-256|P-384|P-521|secp256k1, EdDSA Ed25519|Ed448',
      }),
    ),
    parameterSet: Type.Optional(
      StringEnum(PARAMETER_SETS, { description: 'as in a key spec: the ML-DSA or SLH-DSA parameter set' }),
    ),
  },
  { additionalProperties: false, title: 'ImportParametersRequest' },
);
export const ImportParametersResponse = Type.Object(
  {
    importToken: Type.String({
      description:
        'single use, valid until expiresAt, only for the caller that asked and ' +
        'only for this algorithm and size or curve',
    }),
    wrappingPublicKeyPem: Type.String({ description: 'RSA-3072 public key (SPKI PEM) to wrap the material with' }),
    wrappingAlgorithm: Type.Literal('RSA_AES_KEY_WRAP_SHA_256', {
      description:
        'RSA-OAEP (SHA-256, MGF1 SHA-256) of a fresh AES-256 key, then AES key ' +
        'wrap with padding (RFC 5649) of the material under it, concatenated',
    }),
    expiresAt: Type.String({ description: 'when the token stops being accepted (ISO 8601 UTC, 24 hours after issue)' }),
  },
  { title: 'ImportParametersResponse' },
);

export const ImportKeyBody = Type.Object(
  {
    spec: KeySpecRequest,
    importToken: Type.String({ maxLength: 128, description: 'from POST /v1/keys/import-parameters' }),
    wrappedMaterialBase64: Type.String({
      maxLength: 16384,
      description:
        'RSA_AES_KEY_WRAP_SHA_256 of the material: raw bytes for AES and HMAC, ' +
        'unencrypted PKCS#8 DER for RSA, EC and EdDSA (standard base64)',
    }),
  },
  { additionalProperties: false, title: 'ImportKeyRequest' },
);

/** Import into a key made to await its material (POST /v1/keys with awaitMaterial). */
export const ImportMaterialBody = Type.Object(
  {
    importToken: ImportKeyBody.properties.importToken,
    wrappedMaterialBase64: ImportKeyBody.properties.wrappedMaterialBase64,
    activate: Type.Optional(
      Type.Boolean({ description: 'true: the key becomes Active with its material, in one step (needs Activate too)' }),
    ),
  },
  { additionalProperties: false, title: 'ImportMaterialRequest' },
);
export const ImportMaterialInput = Type.Object(
  { id: KeyId, ...ImportMaterialBody.properties },
  { additionalProperties: false, title: 'ImportMaterialInput' },
);
