import { SvcError } from '../../../../kernel/index.ts';
import { numberValue } from '../attributes.ts';
import type { ProtocolVersion } from '../messages.ts';
import { bytes, child, K, type TtlvItem } from '../ttlv/index.ts';
import { bytesOf, dataOf, keyed, uidItem, type KmipAdapter } from './adapter.ts';

const T = K.Tag;
/** What the service's AES-GCM takes: a 96-bit IV and a 16-byte tag (RawEncrypt, RawDecrypt). */
const IV_BITS = 96;
const TAG_BYTES = 16;

/**
 * Additional data used to be bound to encrypt's envelope as this context entry; Decrypt without an IV still reads it
 * so.
 */
export const AAD_CONTEXT_KEY = 'kmip.aad';

/**
 * KMIP 1.4 gave AES-GCM's tag (and additional data) fields of their own. Before it a protocol message had
 * only Data, IV/Counter/Nonce and Tag Length, so the tag rides at the end of Data (Tag Length bytes), as
 * KMIP 1.2 and 1.3 clients send and expect it.
 */
export const tagHasField = (v: ProtocolVersion) => v.major > 1 || v.minor >= 4;

const b64 = (buf: Buffer) => buf.toString('base64');
const fromB64 = (text: string) => Buffer.from(text, 'base64');

/**
 * The Cryptographic Parameters the service honours (AES, GCM, 96-bit IV, 16-byte tag); anything else is refused, worded
 * for a KMIP caller.
 */
function checkParameters(params: TtlvItem | undefined, ivGiven: boolean): void {
  const mode = numberValue(child(params, T.BlockCipherMode));
  if (mode !== undefined && mode !== K.BlockCipherMode.Gcm)
    throw new SvcError('InvalidField', 'the service encrypts with AES-GCM only (Block Cipher Mode GCM)');
  const algorithm = numberValue(child(params, T.CryptographicAlgorithm));
  if (algorithm !== undefined && algorithm !== K.CryptographicAlgorithm.Aes)
    throw new SvcError('InvalidField', 'Encrypt and Decrypt use AES keys (Cryptographic Algorithm AES)');
  const tagLength = numberValue(child(params, T.TagLength));
  if (tagLength !== undefined && tagLength !== TAG_BYTES)
    throw new SvcError(
      'InvalidField',
      `Tag Length must be ${TAG_BYTES} (bytes): the service makes and checks full 128-bit GCM tags`,
    );
  const ivLength = numberValue(child(params, T.IvLength));
  if (ivLength !== undefined && ivLength !== IV_BITS)
    throw new SvcError('InvalidField', `IV Length must be ${IV_BITS} (bits): AES-GCM's 96-bit IV`);
  // The service draws every IV: a client's could repeat one, and GCM under a repeated IV gives away the
  // keystream and the authentication key, so anyone allowed to encrypt could read and forge others' data.
  if (ivGiven)
    throw new SvcError(
      'InvalidField',
      'the service draws every AES-GCM IV: send Encrypt without ' +
        'IV/Counter/Nonce (Random IV) and keep the IV it answers',
    );
}

const additional = (payload: TtlvItem) => bytesOf(payload, T.AuthenticatedEncryptionAdditionalData);

/**
 * Encrypt is RawEncrypt: Data is the plaintext; the answer's Data the ciphertext alone (1.2, 1.3: followed
 * by the tag), its IV/Counter/Nonce the IV the service drew (a client's own IV is refused), its
 * Authenticated Encryption Tag the tag (1.4, 2.0). Additional data is GCM's AAD, as it is.
 */
export const encrypt: KmipAdapter = async (payload, call) => {
  const iv = bytesOf(payload, T.IvCounterNonce);
  const { uid, result } = await keyed<{ ciphertextBase64: string; ivBase64: string; tagBase64: string }>(
    call,
    payload,
    'RawEncrypt',
    () => {
      checkParameters(child(payload, T.CryptographicParameters), iv !== undefined);
      const aad = additional(payload);
      return { plaintextBase64: b64(dataOf(payload)), ...(aad ? { aadBase64: b64(aad) } : {}) };
    },
  );
  const ciphertext = fromB64(result.ciphertextBase64);
  const tag = fromB64(result.tagBase64);
  const own = tagHasField(call.version);
  const answer: TtlvItem[] = [uidItem(uid), bytes(T.Data, own ? ciphertext : Buffer.concat([ciphertext, tag]))];
  answer.push(bytes(T.IvCounterNonce, fromB64(result.ivBase64)));
  if (own) answer.push(bytes(T.AuthenticatedEncryptionTag, tag));
  return { payload: answer, uid };
};

/**
 * The ciphertext and tag of a Decrypt: the Authenticated Encryption Tag when given (any version), else the last 16
 * bytes of Data.
 */
function ciphertextAndTag(payload: TtlvItem): { ciphertext: Buffer; tag: Buffer } {
  const data = dataOf(payload);
  const tag = bytesOf(payload, T.AuthenticatedEncryptionTag);
  if (tag) return { ciphertext: data, tag };
  if (data.length < TAG_BYTES)
    throw new SvcError(
      'InvalidField',
      `without an Authenticated Encryption Tag, Data must end with the ${TAG_BYTES}-byte tag`,
    );
  return { ciphertext: data.subarray(0, data.length - TAG_BYTES), tag: data.subarray(data.length - TAG_BYTES) };
}

/**
 * Decrypt with an IV/Counter/Nonce is RawDecrypt: the key's versions are tried newest first, since KMIP
 * names the key but not its version (ReKey keeps the identifier). Without one, Data is encrypt's envelope
 * (a REST ciphertext, or what this door's Encrypt answered before it carried GCM's parts), which holds its
 * own IV, tag and version; additional data is then the context entry `kmip.aad`.
 */
export const decrypt: KmipAdapter = async (payload, call) => {
  const iv = bytesOf(payload, T.IvCounterNonce);
  const params = child(payload, T.CryptographicParameters);
  const aad = additional(payload);
  const { uid, result } = iv
    ? await keyed<{ plaintextBase64: string }>(call, payload, 'RawDecrypt', () => {
        checkParameters(params, false);
        const { ciphertext, tag } = ciphertextAndTag(payload);
        return {
          ciphertextBase64: b64(ciphertext),
          ivBase64: b64(iv),
          tagBase64: b64(tag),
          ...(aad ? { aadBase64: b64(aad) } : {}),
        };
      })
    : await keyed<{ plaintextBase64: string }>(call, payload, 'Decrypt', () => {
        checkParameters(params, false);
        if (bytesOf(payload, T.AuthenticatedEncryptionTag))
          throw new SvcError(
            'InvalidField',
            'an Authenticated Encryption Tag needs the IV/Counter/Nonce the data was encrypted with',
          );
        return { ciphertextBase64: b64(dataOf(payload)), ...(aad ? { context: { [AAD_CONTEXT_KEY]: b64(aad) } } : {}) };
      });
  return { payload: [uidItem(uid), bytes(T.Data, fromB64(result.plaintextBase64))], uid };
};
