import type { Logger } from '../../../kernel/index.ts';
import { ckr, Pkcs11SetupError, TOKEN_GONE } from './pkcs11-errors.ts';
import type { Pkcs11, Pkcs11Api } from './pkcs11-module.ts';

/*
 * What the pkcs11 root of trust needs on its token, found (or made) when it connects: the slot by the
 * token's label, the KEKs by theirs, and the mechanism the current KEK wraps with.
 */

/** How KWKs are wrapped under the current KEK: AES key wrap with padding (RFC 5649) where the token has it. */
export type Pkcs11Mechanism = 'aes-key-wrap-pad' | 'aes-gcm';

export function findSlot(lib: Pkcs11, settings: { module: string; tokenLabel: string }): Buffer {
  const labels: string[] = [];
  for (const slot of lib.C_GetSlotList(true)) {
    let label: string;
    try {
      label = lib.C_GetTokenInfo(slot).label.trim();
    } catch {
      continue; // a slot whose token does not answer is not ours to judge
    }
    if (label === settings.tokenLabel) return slot;
    if (label) labels.push(label);
  }
  throw new Pkcs11SetupError(
    `crypto.pkcs11.tokenLabel (SVC_CRYPTO_PKCS11_TOKEN_LABEL): no token labelled "${settings.tokenLabel}" in ${settings.module} (tokens present: ${labels.map((l) => `"${l}"`).join(', ') || 'none'})`,
  );
}

export function findKek(
  lib: Pkcs11,
  api: Pkcs11Api,
  session: Buffer,
  label: string,
  current: boolean,
  settings: { tokenLabel: string; createKek: boolean },
  logger: Pick<Logger, 'warn'>,
): Buffer {
  lib.C_FindObjectsInit(session, [
    { type: api.CKA_CLASS, value: api.CKO_SECRET_KEY },
    { type: api.CKA_LABEL, value: label },
  ]);
  let found: Buffer[];
  try {
    found = lib.C_FindObjects(session, 2);
  } finally {
    lib.C_FindObjectsFinal(session);
  }
  const setting = current
    ? 'crypto.pkcs11.kekLabel (SVC_CRYPTO_PKCS11_KEK_LABEL)'
    : 'crypto.pkcs11.previousKekLabels (SVC_CRYPTO_PKCS11_PREVIOUS_KEK_LABELS)';
  if (found.length > 1)
    throw new Pkcs11SetupError(
      `${setting}: more than one key labelled "${label}" on the token "${settings.tokenLabel}"; a KEK's label must name one key`,
    );
  if (found.length === 1) {
    checkKek(
      lib,
      api,
      session,
      found[0]!,
      `${setting}: the key labelled "${label}" on the token "${settings.tokenLabel}"`,
    );
    return found[0]!;
  }
  if (!current || !settings.createKek) {
    throw new Pkcs11SetupError(
      `${setting}: no key labelled "${label}" on the token "${settings.tokenLabel}"${current ? ' (set SVC_CRYPTO_PKCS11_CREATE_KEK=true to create it at this boot)' : ''}`,
    );
  }
  const kek = lib.C_GenerateKey(session, { mechanism: api.CKM_AES_KEY_GEN }, [
    { type: api.CKA_CLASS, value: api.CKO_SECRET_KEY },
    { type: api.CKA_KEY_TYPE, value: api.CKK_AES },
    { type: api.CKA_VALUE_LEN, value: 32 },
    { type: api.CKA_LABEL, value: label },
    { type: api.CKA_ID, value: Buffer.from(label) },
    { type: api.CKA_TOKEN, value: true },
    { type: api.CKA_PRIVATE, value: true },
    { type: api.CKA_SENSITIVE, value: true },
    { type: api.CKA_EXTRACTABLE, value: false },
    { type: api.CKA_WRAP, value: true },
    { type: api.CKA_UNWRAP, value: true },
    { type: api.CKA_ENCRYPT, value: true },
    { type: api.CKA_DECRYPT, value: true },
  ]);
  logger.warn(`created the KEK "${label}" on the token "${settings.tokenLabel}" (AES-256, sensitive, not extractable)`);
  return kek;
}

/**
 * Key wrap with padding where the token lists it for the KEK and really does it (an HSM's policy may
 * refuse the exportable session key it needs: some FIPS modes), else AES-GCM.
 */
export function chooseMechanism(
  lib: Pkcs11,
  api: Pkcs11Api,
  slot: Buffer,
  session: Buffer,
  kek: Buffer,
  settings: { tokenLabel: string; kekLabel: string },
  options: { needsWrap: boolean; preferGcm?: boolean },
  logger: Pick<Logger, 'warn'>,
): Pkcs11Mechanism {
  const flags = (mechanism: number) => {
    try {
      return lib.C_GetMechanismInfo(slot, mechanism).flags;
    } catch {
      return 0;
    }
  };
  const usage = attributes(lib, session, kek, [api.CKA_WRAP, api.CKA_UNWRAP, api.CKA_ENCRYPT, api.CKA_DECRYPT]);
  const both = (f: number, a: number, b: number) => (f & a) !== 0 && (f & b) !== 0;
  const kwp = both(flags(api.CKM_AES_KEY_WRAP_PAD), api.CKF_WRAP, api.CKF_UNWRAP) && usage[0] === 1 && usage[1] === 1;
  const gcm = both(flags(api.CKM_AES_GCM), api.CKF_ENCRYPT, api.CKF_DECRYPT) && usage[2] === 1 && usage[3] === 1;
  if (kwp && !(options.preferGcm && gcm)) {
    const refusal = keyWrapRefusal(lib, api, session, kek);
    if (!refusal) return 'aes-key-wrap-pad';
    if (!gcm)
      throw new Pkcs11SetupError(
        `crypto.pkcs11.kekLabel (SVC_CRYPTO_PKCS11_KEK_LABEL): the token "${settings.tokenLabel}" lists AES key wrap with padding but refuses it with the KEK "${settings.kekLabel}" (${refusal}), and the KEK cannot do AES-GCM (CKA_ENCRYPT/CKA_DECRYPT)`,
      );
    logger.warn(
      `the token "${settings.tokenLabel}" refuses AES key wrap with padding of a session key (${refusal}); wrapping with AES-GCM instead`,
    );
    return 'aes-gcm';
  }
  if (gcm) return 'aes-gcm';
  if (!options.needsWrap) return 'aes-key-wrap-pad';
  throw new Pkcs11SetupError(
    `crypto.pkcs11.kekLabel (SVC_CRYPTO_PKCS11_KEK_LABEL): the token "${settings.tokenLabel}" cannot wrap with the KEK "${settings.kekLabel}": neither AES key wrap with padding (mechanism and the KEK's CKA_WRAP/CKA_UNWRAP) nor AES-GCM (mechanism and CKA_ENCRYPT/CKA_DECRYPT) is available`,
  );
}

/**
 * One key wrap and unwrap of a throwaway session key, as every wrap will do it: undefined when the token
 * does it, else the return value it refused with. A token that is gone is not a refusal: that throws.
 */
function keyWrapRefusal(lib: Pkcs11, api: Pkcs11Api, session: Buffer, kek: Buffer): string | undefined {
  const template = [
    { type: api.CKA_CLASS, value: api.CKO_SECRET_KEY },
    { type: api.CKA_KEY_TYPE, value: api.CKK_GENERIC_SECRET },
    { type: api.CKA_TOKEN, value: false },
    { type: api.CKA_SENSITIVE, value: false },
    { type: api.CKA_EXTRACTABLE, value: true },
  ];
  const made: Buffer[] = [];
  try {
    const trial = lib.C_CreateObject(session, [...template, { type: api.CKA_VALUE, value: Buffer.alloc(48, 0x5a) }]);
    made.push(trial);
    const wrapped = lib.C_WrapKey(session, { mechanism: api.CKM_AES_KEY_WRAP_PAD }, kek, trial, Buffer.alloc(64));
    const back = lib.C_UnwrapKey(session, { mechanism: api.CKM_AES_KEY_WRAP_PAD }, kek, wrapped, template);
    made.push(back);
    const value = lib.C_GetAttributeValue(session, back, [{ type: api.CKA_VALUE }])[0]?.value as Buffer | undefined;
    return value?.equals(Buffer.alloc(48, 0x5a)) ? undefined : 'a different value came back';
  } catch (err) {
    const code = ckr(err);
    if (!code || TOKEN_GONE.has(code)) throw err;
    return code;
  } finally {
    for (const handle of made) {
      try {
        lib.C_DestroyObject(session, handle);
      } catch {
        // a session object goes with its session anyway
      }
    }
  }
}

/** Reads attributes as numbers (CK_ULONG and CK_BBOOL, little-endian as the binding gives them). */
function attributes(lib: Pkcs11, session: Buffer, handle: Buffer, types: number[]): number[] {
  const out = lib.C_GetAttributeValue(
    session,
    handle,
    types.map((type) => ({ type })),
  );
  return out.map((a) => {
    const v = a.value as Buffer | undefined;
    return v && v.length > 0 ? v.readUIntLE(0, Math.min(v.length, 6)) : 0;
  });
}

/** A KEK must be an AES-256 key the token never lets out: sensitive and not extractable. */
function checkKek(lib: Pkcs11, api: Pkcs11Api, session: Buffer, kek: Buffer, what: string): void {
  const [keyType, length, sensitive, extractable] = attributes(lib, session, kek, [
    api.CKA_KEY_TYPE,
    api.CKA_VALUE_LEN,
    api.CKA_SENSITIVE,
    api.CKA_EXTRACTABLE,
  ]);
  if (keyType !== api.CKK_AES || length !== 32) throw new Pkcs11SetupError(`${what} is not an AES-256 key`);
  if (sensitive !== 1 || extractable !== 0)
    throw new Pkcs11SetupError(
      `${what} can leave the token (CKA_SENSITIVE must be true and CKA_EXTRACTABLE false); create a KEK that cannot`,
    );
}
