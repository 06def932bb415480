/** What export and import do, for a caller choosing an operation (see descriptions.ts). */
export const TRANSFER_DESCRIPTIONS = {
  ExportKey:
    "Export one version's material of a key created with spec.exportable " +
    'true: raw bytes for AES and HMAC, unencrypted PKCS#8 DER for RSA, EC ' +
    'and EdDSA. Only from Active or Deactivated (IllegalOperation ' +
    'otherwise, and for a key that is not exportable). Needs a grant of the ' +
    'Export operation on the key (Get alone never exports). Humans and ' +
    'Services only: agents are refused whatever their scopes. Audited as ' +
    'Export, never the bytes.',
  GetImportParameters:
    'Start an import (bring your own key): returns an RSA-3072 wrapping ' +
    'public key and a token for one algorithm and size or curve, usable ' +
    'once, by the same caller, within 24 hours. Wrap the material with ' +
    'RSA_AES_KEY_WRAP_SHA_256 and send it to ImportKey. Humans and Services only.',
  ImportKey:
    'Create a key from material brought by the caller, wrapped under import ' +
    'parameters (RSA_AES_KEY_WRAP_SHA_256): raw bytes for AES and HMAC, ' +
    'PKCS#8 DER for RSA, EC and EdDSA. The key starts PreActive with origin ' +
    'imported. Any attempt spends the token. InvalidField, with the reason, ' +
    'for a wrong, expired or spent token, a wrapping that does not open, or ' +
    'material that does not match the spec; nothing is stored then. Humans ' +
    'and Services only.',
  ImportKeyMaterial:
    'Import material into a key made to await it (POST /v1/keys with ' +
    'awaitMaterial): the token must be issued for the key type; the material ' +
    'becomes version 1, and with activate the key Active in the same step. ' +
    'Any attempt spends the token. IllegalOperation for a key that has ' +
    'material; InvalidField as for ImportKey. Humans and Services only.',
} as const;
