import { createPublicKey } from 'node:crypto';
import { SvcError, type ManagedKey } from '../../../../kernel/index.ts';
import {
  encodeAttributeNames,
  encodeAttributes,
  nameValue,
  numberValue,
  readAttributes,
  requestedNames,
} from '../attributes.ts';
import {
  algorithmCode,
  familyOf,
  keyAttributes,
  objectRef,
  PUBLIC_SUFFIX,
  parameterSetOfCode,
  STATE_NAMES,
} from '../key-attributes.ts';
import { KmipRejection } from '../result-reasons.ts';
import { bytes, child, enumeration, integer, K, structure, type TtlvItem } from '../ttlv/index.ts';
import { getKey, missingUid, uidItem, uidOf, type KmipAdapter, type KmipCall } from './adapter.ts';

const T = K.Tag;
const F = K.KeyFormatType;

/** The target's key, read through GetKey; a missing identifier is refused by the pipeline. */
async function target(
  payload: TtlvItem,
  call: KmipCall,
): Promise<{ uid: string; key: ManagedKey; publicHalf: boolean }> {
  const uid = uidOf(payload, call);
  if (uid === undefined) {
    await call.run('GetKey', {}, missingUid());
    throw missingUid(); // the pipeline refused already; not reached
  }
  const ref = objectRef(uid);
  const key = await getKey(call, ref.keyId);
  if (ref.publicHalf && key.spec.objectType !== 'PrivateKey') throw new SvcError('KeyNotFound', `key ${uid} not found`);
  return { uid, key, publicHalf: ref.publicHalf };
}

function keyBlock(format: number, material: Buffer, key: ManagedKey): TtlvItem {
  return structure(T.KeyBlock, [
    enumeration(T.KeyFormatType, format),
    structure(T.KeyValue, [bytes(T.KeyMaterial, material)]),
    enumeration(T.CryptographicAlgorithm, algorithmCode(key)),
    integer(T.CryptographicLength, key.spec.sizeBits),
  ]);
}

/**
 * The Key Format Type Get answers an object in, or the refusal of the one asked for: public keys as X.509
 * (PKCS#1 for RSA when asked), symmetric keys Raw, private keys PKCS#8.
 */
function formatOf(key: ManagedKey, publicHalf: boolean, wanted: number | undefined): number | KmipRejection {
  const refuse = (message: string) => new KmipRejection(K.ResultReason.KeyFormatTypeNotSupported, message);
  if (publicHalf) {
    const format = wanted ?? F.X509;
    return format === F.X509 || (format === F.Pkcs1 && key.spec.algorithm === 'RSA')
      ? format
      : refuse('public keys are served as X.509 (SubjectPublicKeyInfo), or PKCS#1 for RSA');
  }
  if (key.spec.objectType === 'SymmetricKey')
    return wanted === undefined || wanted === F.Raw || wanted === F.TransparentSymmetricKey
      ? F.Raw
      : refuse('symmetric keys are served as Raw');
  return wanted === undefined || wanted === F.Pkcs8 ? F.Pkcs8 : refuse('private keys are served as PKCS#8');
}

/**
 * Get: a public key always (GetPublicKey); symmetric and private key material only through ExportKey,
 * which allows it for keys created or registered as exportable, never to Agents, and audits it. What the
 * door cannot answer (a wrapped Key Block, a Key Format Type it does not serve) is refused by that
 * operation, before it runs: a refusal is audited as one, never after material was read.
 */
export const get: KmipAdapter = async (payload, call) => {
  const { uid, key, publicHalf } = await target(payload, call);
  const format = formatOf(key, publicHalf, numberValue(child(payload, T.KeyFormatType)));
  // Material is only ever answered in plaintext over the mutual-TLS connection: a client that asked for it
  // wrapped must not receive it unwrapped instead.
  const rejected = child(payload, T.KeyWrappingSpecification)
    ? new SvcError(
        'InvalidField',
        'Key Wrapping Specification is not supported: Get answers key material ' +
          'unwrapped, over the mutual-TLS connection',
      )
    : format instanceof KmipRejection
      ? format
      : undefined;
  if (publicHalf) {
    const answer = await call.run<{ publicKeyPem: string }>('GetPublicKey', { id: key.id }, rejected);
    const publicKey = createPublicKey(answer.publicKeyPem);
    const der =
      format === F.Pkcs1
        ? publicKey.export({ type: 'pkcs1', format: 'der' })
        : publicKey.export({ type: 'spki', format: 'der' });
    return {
      payload: [
        enumeration(T.ObjectType, K.ObjectType.PublicKey),
        uidItem(uid),
        structure(T.PublicKey, [keyBlock(format as number, der, key)]),
      ],
      uid,
    };
  }
  const exported = await call.run<{ format: string; materialBase64: string }>('ExportKey', { id: key.id }, rejected);
  const material = Buffer.from(exported.materialBase64, 'base64');
  if (key.spec.objectType === 'SymmetricKey')
    return {
      payload: [
        enumeration(T.ObjectType, K.ObjectType.SymmetricKey),
        uidItem(uid),
        structure(T.SymmetricKey, [keyBlock(F.Raw, material, key)]),
      ],
      uid,
    };
  return {
    payload: [
      enumeration(T.ObjectType, K.ObjectType.PrivateKey),
      uidItem(uid),
      structure(T.PrivateKey, [keyBlock(F.Pkcs8, material, key)]),
    ],
    uid,
  };
};

/**
 * Attributes answered only when named: PyKMIP, the reference client, fails to read a whole answer that
 * holds one it does not know (Extractable, a KMIP 2.0 attribute).
 */
const ON_REQUEST_ONLY = new Set(['Extractable']);

export const getAttributes: KmipAdapter = async (payload, call) => {
  const { uid, key, publicHalf } = await target(payload, call);
  const names = requestedNames(payload);
  const all = keyAttributes(key, publicHalf, call.v2);
  const chosen = names
    ? all.filter(([name]) => names.includes(name))
    : all.filter(([name]) => !ON_REQUEST_ONLY.has(name));
  return { payload: [uidItem(uid), ...encodeAttributes(chosen, call.v2)], uid };
};

export const getAttributeList: KmipAdapter = async (payload, call) => {
  const { uid, key, publicHalf } = await target(payload, call);
  return {
    payload: [
      uidItem(uid),
      ...encodeAttributeNames(
        keyAttributes(key, publicHalf, call.v2)
          .map(([name]) => name)
          .filter((name) => !ON_REQUEST_ONLY.has(name)),
        call.v2,
      ),
    ],
    uid,
  };
};

/** Keys one Locate reads at most: ten full pages. */
const LOCATE_SCAN_PAGES = 10;
/**
 * Identifiers one Locate answers at most (and by default); a larger Maximum Items is read as this, which
 * KMIP allows (the server MAY answer fewer). Without it, a message of 100 Locates could ask for 20,000
 * identifiers each: a response of about 100 MB, encoded in one piece, from a request of a few kilobytes.
 */
const LOCATE_MAX_ITEMS = 1000;
const ALGORITHMS_BY_CODE: Record<number, string> = {
  [K.CryptographicAlgorithm.Aes]: 'AES',
  [K.CryptographicAlgorithm.Rsa]: 'RSA',
  [K.CryptographicAlgorithm.Ecdsa]: 'EC',
  [K.CryptographicAlgorithm.Ec]: 'EC',
  [K.CryptographicAlgorithm.HmacSha256]: 'HMAC',
  [K.CryptographicAlgorithm.HmacSha384]: 'HMAC',
  [K.CryptographicAlgorithm.HmacSha512]: 'HMAC',
  [K.CryptographicAlgorithm.Ed25519]: 'EdDSA',
  [K.CryptographicAlgorithm.Ed448]: 'EdDSA',
};

/**
 * The KMIP objects of one key that pass the Object Type filter: the key itself, and an asymmetric key's public half.
 */
function objectsOf(key: ManagedKey, objectType: number | undefined): string[] {
  const own = key.spec.objectType === 'SymmetricKey' ? K.ObjectType.SymmetricKey : K.ObjectType.PrivateKey;
  const out: string[] = [];
  if (objectType === undefined || objectType === own) out.push(key.id);
  if (key.spec.objectType === 'PrivateKey' && (objectType === undefined || objectType === K.ObjectType.PublicKey))
    out.push(`${key.id}${PUBLIC_SUFFIX}`);
  return out;
}

/**
 * Locate by Name, Object Type, State and Cryptographic Algorithm, through LocateKeys (so the caller finds
 * only keys it may read), newest first; Offset Items and Maximum Items page the answer.
 */
export const locate: KmipAdapter = async (payload, call) => {
  const attributes = readAttributes([payload, child(payload, T.Attributes)]);
  const max = numberValue(child(payload, T.MaximumItems));
  const offset = numberValue(child(payload, T.OffsetItems)) ?? 0;
  const query: Record<string, unknown> = { limit: 1000 };
  const name = nameValue(attributes.get('Name'));
  if (name !== undefined) query.name = name;
  const state = numberValue(attributes.get('State'));
  let rejected: SvcError | undefined;
  if (state !== undefined) {
    if (STATE_NAMES[state]) query.state = STATE_NAMES[state];
    else rejected = new SvcError('InvalidField', `State ${state} is not a state the service keeps`);
  }
  const algorithm = numberValue(attributes.get('Cryptographic Algorithm'));
  if (algorithm !== undefined) {
    // An ML-DSA or SLH-DSA set: its family's keys are read, and those of the set kept (below).
    const set = parameterSetOfCode(algorithm);
    if (ALGORITHMS_BY_CODE[algorithm]) query.algorithm = ALGORITHMS_BY_CODE[algorithm];
    else if (set) query.algorithm = familyOf(set);
    else
      rejected ??= new SvcError(
        'InvalidField',
        `Cryptographic Algorithm ${algorithm} is not one the service keeps keys of`,
      );
  }
  if (max !== undefined && max < 0) rejected ??= new SvcError('InvalidField', 'Maximum Items must not be negative');
  if (offset < 0) rejected ??= new SvcError('InvalidField', 'Offset Items must not be negative');
  const objectType = numberValue(attributes.get('Object Type'));
  const found: string[] = [];
  const wanted = offset + Math.min(max ?? LOCATE_MAX_ITEMS, LOCATE_MAX_ITEMS);
  for (let page = 0; page < LOCATE_SCAN_PAGES && found.length < wanted; page++) {
    const answer = await call.run<{ keys: ManagedKey[]; nextCursor?: string }>('LocateKeys', query, rejected);
    for (const key of answer.keys) {
      if (
        algorithm !== undefined &&
        algorithmCode(key) !== algorithm &&
        !(algorithm === K.CryptographicAlgorithm.Ec && key.spec.algorithm === 'EC')
      )
        continue;
      found.push(...objectsOf(key, objectType));
    }
    if (!answer.nextCursor) break;
    query.cursor = answer.nextCursor;
  }
  const page = found.slice(offset, wanted);
  return { payload: page.map(uidItem), ...(page.length === 1 ? { uid: page[0] } : {}) };
};
