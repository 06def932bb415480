import type { Static } from '@sinclair/typebox';
import type * as B from '../../schemas/batch.ts';
import type * as D from '../../schemas/data-keys.ts';
import type * as K from '../../schemas/keys.ts';

// Data keys, re-encryption and batches, derived from the service's schemas like types.ts; bytes are
// Uint8Array instead of base64 text.

type EncryptionContext = NonNullable<Static<typeof K.EncryptBody>['context']>;
type SignatureAlgorithm = NonNullable<Static<typeof K.SignBody>['algorithm']>;

export interface DataKeyOptions {
  /** 128, 192 or 256 (default 256). */
  sizeBits?: NonNullable<Static<typeof D.DataKeyBody>['sizeBits']>;
  context?: EncryptionContext;
  /** false: only the encrypted data key comes back (default true). */
  plaintext?: boolean;
}
export type DataKeyResult = Omit<Static<typeof D.DataKeyResponse>, 'ciphertextBase64' | 'plaintextBase64'> & {
  ciphertext: Uint8Array;
  plaintext?: Uint8Array;
};

export interface ReencryptOptions {
  context?: EncryptionContext;
  /** Default: the same key (its current version). */
  destinationKeyId?: string;
  /** Default: the source context. */
  destinationContext?: EncryptionContext;
}
export type ReencryptResult = Omit<Static<typeof D.ReencryptResponse>, 'ciphertextBase64'> & { ciphertext: Uint8Array };

/** An item of a batch that failed: the error code and message the single call would have answered. */
export type BatchItemError = Static<typeof B.BatchItemError>;
export type EncryptItem = { plaintext: Uint8Array; context?: EncryptionContext };
export type DecryptItem = { ciphertext: Uint8Array; context?: EncryptionContext };
/** The message, or (RSA and ECDSA) its hash as the algorithm hashes it: the signature is the same. */
type Signed = { message: Uint8Array; digest?: undefined } | { digest: Uint8Array; message?: undefined };
export type SignItem = Signed & { algorithm?: SignatureAlgorithm };
export type VerifyItem = Signed & {
  signature: Uint8Array;
  algorithm?: SignatureAlgorithm;
  keyVersion?: number;
};

/** True for a batch result that is an item's error rather than its answer. */
export function isBatchItemError(result: object): result is BatchItemError {
  return 'error' in result && typeof (result as { error: unknown }).error === 'string';
}
