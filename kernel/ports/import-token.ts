import type { WrappedKey } from './root-of-trust.ts';

/**
 * One outstanding import token as the journal keeps it (POST /v1/keys/import-parameters made it,
 * POST /v1/keys/import spends it). Nothing in it is usable without the root of trust: the token itself
 * is stored only as its SHA-256, and the wrapping private key only sealed under a key that the root of
 * trust wraps, like a key's KWK.
 */
export interface StoredImportToken {
  /** SHA-256 of the token (lowercase hex): the lookup key; the token never reaches storage. */
  tokenHash: string;
  /** Random id the root of trust binds `sealingKey` to (`import:<importId>`), never a key id. */
  importId: string;
  /** The subject the token was issued to: only it may spend the token. */
  issuedTo: string;
  /** The key type the material must be: `AES/256`, `EC/384/P-384`, `EdDSA/256/Ed25519` ... */
  keyType: string;
  createdAt: string;
  /** ISO 8601 UTC; the token is refused, and pruned, from then on. */
  expiresAt: string;
  /** An AES-256 key wrapped by the root of trust, which seals `privateKey`. */
  sealingKey: WrappedKey;
  /** The RSA wrapping key's PKCS#8 DER, sealed (AES-256-GCM) under the sealing key. */
  privateKey: Buffer;
}
