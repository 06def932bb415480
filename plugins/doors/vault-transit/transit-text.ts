import { invalid } from './vault-errors.ts';

// vault:v<version>:<standard base64>, as Vault writes ciphertexts, signatures and HMACs.
const VERSIONED = /^vault:v([1-9]\d{0,8}):([A-Za-z0-9+/_-]+={0,2})$/;

/** A ciphertext, signature or HMAC in Vault's form: `vault:v<version>:<base64>`. */
export const versioned = (version: number, base64: string) => `vault:v${version}:${base64}`;

/** The version and base64 text of a `vault:v<version>:` value, or a 400 naming the field. */
export function parseVersioned(value: string, field: string): { version: number; base64: string } {
  const match = VERSIONED.exec(value);
  if (!match) throw invalid(`invalid ${field}: expected vault:v<version>:<base64>`);
  return { version: Number(match[1]), base64: match[2]! };
}

/**
 * The encryption context a transit `context` stands for. The service binds a context of name/value
 * pairs as AAD; transit's is one base64 value, so it becomes the one pair `vault.context: <base64 as
 * sent>`, which a REST or AWS caller presents to decrypt the same ciphertext.
 */
export const CONTEXT_NAME = 'vault.context';

export function encryptionContext(context: string | undefined): Record<string, string> | undefined {
  if (context === undefined || context === '') return undefined;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(context)) throw invalid('context must be base64');
  return { [CONTEXT_NAME]: context };
}
