/**
 * A ciphertext that names its key, for protocols whose Decrypt takes no key (the AWS KMS door's
 * CiphertextBlob): a marker byte, the key's id as 16 bytes, then the key's own envelope unchanged. The
 * envelope's authentication already binds the key id, so the name only routes the call; a name that
 * was altered routes it to a key that fails to open it. Decrypt and re-encrypt accept either form.
 */
const NAMED = 0x4b; // 'K': never the first byte of an envelope (those start with their format, 0x01)
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEADER = 17;

/** The envelope under the key `keyId` (a UUID), prefixed with the key's name. */
export function nameCiphertext(keyId: string, envelope: Buffer): Buffer {
  if (!UUID.test(keyId)) throw new Error(`not a key id: ${keyId}`);
  const out = Buffer.allocUnsafe(HEADER + envelope.length);
  out[0] = NAMED;
  out.write(keyId.replaceAll('-', ''), 1, 'hex');
  envelope.copy(out, HEADER);
  return out;
}

/** The key a named ciphertext names, or undefined for any other bytes. */
export function ciphertextKeyId(blob: Buffer): string | undefined {
  if (blob.length <= HEADER || blob[0] !== NAMED) return undefined;
  const hex = blob.toString('hex', 1, HEADER);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The envelope to open under `keyId`: a named ciphertext's inner envelope when it names that key, the
 * bytes as they are when they name no key, and undefined when they name another key.
 */
export function envelopeFor(keyId: string, blob: Buffer): Buffer | undefined {
  const named = ciphertextKeyId(blob);
  if (named === undefined) return blob;
  return named === keyId ? blob.subarray(HEADER) : undefined;
}
