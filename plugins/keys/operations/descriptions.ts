/**
 * What each key operation does, for a caller choosing among them (a model choosing a tool, a reader of
 * the API docs): when to use it, what it returns, what it refuses. Key material leaves the service
 * only through export, of keys created exportable, to Humans and Services; every call is authorized,
 * risk-checked and audited.
 */
export const KEY_DESCRIPTIONS = {
  CreateKey:
    'Create a managed key from a spec (name, algorithm AES, RSA, EC, EdDSA ' +
    'or HMAC, optional rotation policy). The key starts PreActive at ' +
    'version 1 and must be activated before it can sign, encrypt or wrap. ' +
    'Returns the key (id, state, versions); its material never leaves the ' +
    'service unless spec.exportable is true (then Humans and Services, ' +
    'never agents, may export it). Refused when the spec is invalid ' +
    '(InvalidField) or the caller may not create keys.',
  GetKey:
    "Read one key's metadata by id: name, algorithm, state (PreActive, " +
    'Active, Deactivated, Compromised, Destroyed), current version, ' +
    "rotation policy and times. Use it to check a key's state before using " +
    'it. Changes nothing. KeyNotFound for an unknown id.',
  ActivateKey:
    'Move a PreActive key to Active, so it can sign, encrypt and wrap. ' +
    'Returns the new state. IllegalOperation when the key is not PreActive.',
  RotateKey:
    'Give an Active key a new current version: new signatures, ciphertexts ' +
    'and wrapped keys use it, older versions keep verifying, decrypting and ' +
    'unwrapping. Returns the previous and current version. Use it when a ' +
    "key's period is over or its material may be exposed; it cannot be " +
    'undone. IllegalOperation when the key is not Active.',
  RevokeKey:
    'Deactivate an Active key for good: it no longer signs, encrypts or ' +
    'wraps, but its old material still verifies, decrypts and unwraps. ' +
    'Takes an optional reason, which is audited. Cannot be undone. ' +
    'IllegalOperation when the key is not Active.',
  CompromiseKey:
    'Mark a key compromised, one-way and for good: every later ' +
    'cryptographic call with it is refused. Takes a reason, which is ' +
    'audited as critical. Use it only when the material is known or ' +
    'suspected to be exposed. IllegalOperation when the key is already ' +
    'Compromised or Destroyed.',
  DestroyKey:
    "Erase every version of a key's material for good; only its metadata " +
    'remains, state Destroyed. Nothing encrypted or wrapped under it can be ' +
    "recovered afterwards. With waitingDays (0..30; the deployment's " +
    'default otherwise, and for an agent always at least the agent minimum, ' +
    '7 days by default) the destruction is scheduled instead: answer 202 ' +
    'with destroyAt, the key refuses every cryptographic call until then, ' +
    'and a Human may cancel. Otherwise returns whether the erasure is ' +
    'complete or pending. Cannot be undone once carried out. An Active key ' +
    'must be revoked or marked compromised first (IllegalOperation); a key ' +
    'already scheduled is IllegalOperation.',
  GetPublicKey:
    'Read the public key (SPKI PEM) of an RSA, EC or EdDSA key, of its ' +
    'current version or of a given version, to verify signatures elsewhere. ' +
    'Changes nothing. IllegalOperation for AES and HMAC keys, which have no ' +
    'public key, and for a Destroyed key.',
  Sign:
    'Sign a message (base64) with the current version of an Active RSA, EC, ' +
    'EdDSA or HMAC key. Returns the signature (base64), the algorithm and ' +
    'the key version that signed. IllegalOperation when the key is not ' +
    'Active or cannot sign. RSA and ECDSA also sign a digest instead ' +
    "(digestBase64: the message's hash, as long as the algorithm's hash), " +
    'giving the signature the message would get.',
  Verify:
    "Check a signature over a message (both base64) with a key's versions. " +
    'Returns valid true or false (a mismatch is an answer, not an error), ' +
    'the algorithm and the version that matched. Changes nothing. Works on ' +
    'Deactivated keys too (IllegalOperation in other states but Active). ' +
    "RSA and ECDSA also verify over the message's digest (digestBase64).",
  Encrypt:
    "Encrypt plaintext (base64, at most 64 KiB) with an Active AES key's " +
    'current version (AES-256-GCM). An optional context object is bound to ' +
    'the ciphertext: decrypting needs the same context. Returns an opaque ' +
    'ciphertext (base64) that names the key version. IllegalOperation when ' +
    'the key is not Active or not AES.',
  Decrypt:
    'Decrypt a ciphertext made by encrypt with the same AES key, giving the ' +
    'same context. Works on Active and Deactivated keys. Returns the ' +
    'plaintext (base64) and the key version. DecryptionFailed when the ' +
    'ciphertext, key or context does not match.',
  Wrap:
    'Wrap a data key (base64, 16 to 512 bytes, a multiple of 8) under an ' +
    "Active AES key's current version (AES key wrap) for envelope " +
    'encryption: store the wrapped key next to the data. Returns the ' +
    'wrapped key (base64) naming the key version. IllegalOperation when the ' +
    'key is not Active or not AES.',
  Unwrap:
    'Unwrap a data key wrapped by wrap with the same AES key. Works on ' +
    'Active and Deactivated keys. Returns the data key (base64) and the key ' +
    'version. DecryptionFailed when the wrapped key does not belong to this key.',
  CancelDestroy:
    'Cancel the scheduled destruction of a key (Humans only): the key is ' +
    'kept, in the state it had, and serves calls again. IllegalOperation ' +
    'when no destruction is scheduled.',
  TrimKey:
    'Erase for good the material of every version of a key below minVersion ' +
    '(2..currentVersion); the current version is always kept. Ciphertexts, ' +
    'wrapped keys and signatures of the erased versions can never be ' +
    'decrypted, unwrapped or verified again (IllegalOperation naming the ' +
    'trimmed version). Returns the new minVersion and whether the erasure ' +
    'is complete or pending. Humans and Services only.',
  DestroyScheduledKey:
    'Destroy a key whose scheduled destruction is due; run by the service itself, not offered to callers.',
  RewrapKeys:
    "Re-wrap every key's key-wrapping key under the root of trust's current " +
    "KEK after a KEK rotation; run by the server's rewrap command, not " +
    'offered to callers. Returns how many were re-wrapped.',
} as const;
