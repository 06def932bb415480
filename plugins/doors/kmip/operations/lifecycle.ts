import { SvcError, type ManagedKey } from '../../../../kernel/index.ts';
import { nameValue, numberValue, readAttributes } from '../attributes.ts';
import { objectRef, PUBLIC_SUFFIX, requestedSpec, type RequestedSpec } from '../key-attributes.ts';
import { child, enumeration, K, text, type TtlvItem } from '../ttlv/index.ts';
import { missingUid, uidItem, uidOf, type KmipAdapter, type KmipCall } from './adapter.ts';

const T = K.Tag;

/** The CreateKey spec from KMIP attributes; a value the service cannot make is InvalidField. */
function specOf(
  attributes: Map<string, TtlvItem>,
  allowed: Array<RequestedSpec['algorithm']>,
): Record<string, unknown> {
  const domain = attributes.get('Cryptographic Domain Parameters');
  const wanted = requestedSpec(
    numberValue(attributes.get('Cryptographic Algorithm')),
    numberValue(attributes.get('Cryptographic Length')),
    numberValue(child(domain, T.RecommendedCurve)),
  );
  if (!allowed.includes(wanted.algorithm))
    throw new SvcError('InvalidField', `this operation makes ${allowed.join(' or ')} keys, not ${wanted.algorithm}`);
  const extractable = attributes.get('Extractable');
  // Without a Name attribute the key is named by its id (names are unique among live keys).
  const name = nameValue(attributes.get('Name'));
  return {
    ...(name !== undefined ? { name } : {}),
    algorithm: wanted.algorithm,
    ...(wanted.sizeBits !== undefined ? { sizeBits: wanted.sizeBits } : {}),
    ...(wanted.curve !== undefined ? { curve: wanted.curve } : {}),
    ...(wanted.parameterSet !== undefined ? { parameterSet: wanted.parameterSet } : {}),
    ...(extractable?.type === 'Boolean' ? { exportable: extractable.value } : {}),
  };
}

/** Runs `operationId` with the spec, or has the pipeline refuse what could not be translated. */
async function createWith(
  call: KmipCall,
  attributes: Map<string, TtlvItem>,
  allowed: Array<RequestedSpec['algorithm']>,
): Promise<ManagedKey> {
  let spec: Record<string, unknown> = {};
  let rejected: SvcError | undefined;
  try {
    spec = specOf(attributes, allowed);
  } catch (err) {
    rejected = err as SvcError;
  }
  return call.run<ManagedKey>('CreateKey', { spec }, rejected);
}

export const create: KmipAdapter = async (payload, call) => {
  const objectType = numberValue(child(payload, T.ObjectType));
  const attributes = readAttributes([child(payload, T.TemplateAttribute), child(payload, T.Attributes)]);
  const key =
    objectType === K.ObjectType.SymmetricKey
      ? await createWith(call, attributes, ['AES', 'HMAC'])
      : await call.run<ManagedKey>(
          'CreateKey',
          { spec: {} },
          new SvcError(
            'InvalidField',
            'Create makes symmetric keys (Object Type Symmetric Key); use CreateKeyPair for RSA, EC, EdDSA, ML-DSA and SLH-DSA',
          ),
        );
  return { payload: [enumeration(T.ObjectType, K.ObjectType.SymmetricKey), uidItem(key.id)], uid: key.id };
};

export const createKeyPair: KmipAdapter = async (payload, call) => {
  const attributes = readAttributes([
    child(payload, T.PrivateKeyTemplateAttribute),
    child(payload, T.PrivateKeyAttributes),
    child(payload, T.CommonTemplateAttribute),
    child(payload, T.CommonAttributes),
    child(payload, T.PublicKeyTemplateAttribute),
    child(payload, T.PublicKeyAttributes),
  ]);
  const key = await createWith(call, attributes, ['RSA', 'EC', 'EdDSA', 'ML-DSA', 'SLH-DSA']);
  return {
    payload: [
      text(T.PrivateKeyUniqueIdentifier, key.id),
      text(T.PublicKeyUniqueIdentifier, `${key.id}${PUBLIC_SUFFIX}`),
    ],
    uid: key.id,
  };
};

/**
 * The key a lifecycle operation acts on. The public half has no lifecycle of its own (it follows its
 * private key), so naming it is refused, through the pipeline, with the identifier to use instead.
 */
async function lifecycle(
  call: KmipCall,
  payload: TtlvItem,
  operationId: string,
  input: Record<string, unknown>,
): Promise<string> {
  const uid = uidOf(payload, call);
  if (uid === undefined) {
    await call.run(operationId, input, missingUid()); // refuses, and audits the refusal
    throw missingUid();
  }
  const ref = objectRef(uid);
  const rejected = ref.publicHalf
    ? new SvcError('InvalidField', `${uid} is a public key, whose state follows its private key: use ${ref.keyId}`)
    : undefined;
  await call.run(operationId, { id: ref.keyId, ...input }, rejected);
  return uid;
}

export const activate: KmipAdapter = async (payload, call) => {
  const uid = await lifecycle(call, payload, 'ActivateKey', {});
  return { payload: [uidItem(uid)], uid };
};

export const revoke: KmipAdapter = async (payload, call) => {
  const reason = child(payload, T.RevocationReason);
  const code = numberValue(child(reason, T.RevocationReasonCode));
  const message = child(reason, T.RevocationMessage);
  const text = message?.type === 'TextString' && message.value ? message.value : undefined;
  // Key Compromise is the service's Compromise (one-way; every cryptographic call refused after); any other reason is
  // Revoke.
  const uid =
    code === K.RevocationReasonCode.KeyCompromise
      ? await lifecycle(call, payload, 'CompromiseKey', { reason: text ?? 'KMIP Revoke: key compromise' })
      : await lifecycle(call, payload, 'RevokeKey', text ? { reason: text } : {});
  return { payload: [uidItem(uid)], uid };
};

export const destroy: KmipAdapter = async (payload, call) => {
  const uid = await lifecycle(call, payload, 'DestroyKey', {});
  return { payload: [uidItem(uid)], uid };
};

/** ReKey is rotation: a new version under the same identifier; older versions keep decrypting and verifying. */
export const reKey: KmipAdapter = async (payload, call) => {
  const uid = await lifecycle(call, payload, 'RotateKey', {});
  return { payload: [uidItem(uid)], uid };
};
