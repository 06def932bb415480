import { createPrivateKey } from 'node:crypto';
import { SvcError, type ManagedKey } from '../../../../kernel/index.ts';
import { wrapKeyMaterial } from '../../../../schemas/key-wrapping.ts';
import { nameValue, numberValue, readAttributes } from '../attributes.ts';
import { requestedSpec } from '../key-attributes.ts';
import { child, K, type TtlvItem } from '../ttlv/index.ts';
import { uidItem, type KmipAdapter, type KmipCall } from './adapter.ts';

const T = K.Tag;
const F = K.KeyFormatType;

interface Registration {
  spec: Record<string, unknown>;
  /** What import takes: the raw secret for AES and HMAC, unencrypted PKCS#8 DER for private keys. */
  material: Buffer;
}

/**
 * The key material of a plaintext Key Block in the format import takes; wrapped blocks are refused. An
 * ML-DSA or SLH-DSA private key (`postQuantum`) is PKCS#8 only, and its bytes go to the import as they
 * came: the import reads them, checks the set and makes a test signature, on a runtime that has the
 * algorithm; on one that has not (Node 20), the import refuses the key type naming Node 24, as REST does.
 */
function materialOf(block: TtlvItem | undefined, symmetric: boolean, postQuantum = false): Buffer {
  if (child(block, T.KeyWrappingData))
    throw new SvcError(
      'InvalidField',
      'wrapped key blocks are not accepted: register the key in plaintext over the mutual-TLS connection',
    );
  const format = numberValue(child(block, T.KeyFormatType));
  const material = child(child(block, T.KeyValue), T.KeyMaterial);
  if (material?.type !== 'ByteString') throw new SvcError('InvalidField', 'the Key Block has no Key Material bytes');
  if (symmetric) {
    if (format !== F.Raw) throw new SvcError('InvalidField', 'symmetric keys are registered in Key Format Type Raw');
    return material.value;
  }
  if (postQuantum) {
    if (format !== F.Pkcs8)
      throw new SvcError('InvalidField', 'ML-DSA and SLH-DSA private keys are registered in Key Format Type PKCS#8');
    return Buffer.from(material.value);
  }
  try {
    if (format === F.Pkcs8)
      return createPrivateKey({ key: material.value, format: 'der', type: 'pkcs8' }).export({
        type: 'pkcs8',
        format: 'der',
      });
    if (format === F.Pkcs1)
      return createPrivateKey({ key: material.value, format: 'der', type: 'pkcs1' }).export({
        type: 'pkcs8',
        format: 'der',
      });
    if (format === F.EcPrivateKey)
      return createPrivateKey({ key: material.value, format: 'der', type: 'sec1' }).export({
        type: 'pkcs8',
        format: 'der',
      });
  } catch {
    throw new SvcError('InvalidField', 'the Key Material does not read as a private key of its Key Format Type');
  }
  throw new SvcError(
    'InvalidField',
    'private keys are registered in Key Format Type PKCS#8, PKCS#1 (RSA) or EC Private Key',
  );
}

function registrationOf(payload: TtlvItem): Registration {
  const objectType = numberValue(child(payload, T.ObjectType));
  const symmetric = objectType === K.ObjectType.SymmetricKey;
  if (!symmetric && objectType !== K.ObjectType.PrivateKey)
    throw new SvcError('InvalidField', 'Register takes symmetric keys and private keys');
  const block = child(child(payload, symmetric ? T.SymmetricKey : T.PrivateKey), T.KeyBlock);
  const attributes = readAttributes([child(payload, T.TemplateAttribute), child(payload, T.Attributes)]);
  const wanted = requestedSpec(
    numberValue(child(block, T.CryptographicAlgorithm)) ?? numberValue(attributes.get('Cryptographic Algorithm')),
    numberValue(child(block, T.CryptographicLength)) ?? numberValue(attributes.get('Cryptographic Length')),
    undefined,
  );
  if (symmetric !== (wanted.algorithm === 'AES' || wanted.algorithm === 'HMAC'))
    throw new SvcError('InvalidField', `a ${wanted.algorithm} key is not a ${symmetric ? 'symmetric' : 'private'} key`);
  const extractable = attributes.get('Extractable');
  // Without a Name attribute the key is named by its id (names are unique among live keys).
  const name = nameValue(attributes.get('Name'));
  return {
    spec: {
      ...(name !== undefined ? { name } : {}),
      algorithm: wanted.algorithm,
      ...(wanted.sizeBits !== undefined ? { sizeBits: wanted.sizeBits } : {}),
      ...(wanted.curve !== undefined ? { curve: wanted.curve } : {}),
      ...(wanted.parameterSet !== undefined ? { parameterSet: wanted.parameterSet } : {}),
      ...(extractable?.type === 'Boolean' ? { exportable: extractable.value } : {}),
    },
    material: materialOf(block, symmetric, wanted.parameterSet !== undefined),
  };
}

/**
 * Register is the service's import (bring your own key), made as any import client makes it: import
 * parameters for the key's type, the material wrapped under their public key, then ImportKey. Both
 * calls run through the pipeline (two audit records, operation Create); the key starts PreActive with
 * origin imported. The material never appears in an audit record or a log.
 */
export const register: KmipAdapter = async (payload: TtlvItem, call: KmipCall) => {
  let registration: Registration | undefined;
  try {
    registration = registrationOf(payload);
  } catch (err) {
    await call.run(
      'ImportKey',
      {},
      err instanceof SvcError ? err : new SvcError('InvalidField', 'the Register payload could not be read'),
    );
  }
  const { spec, material } = registration!;
  try {
    const params = await call.run<{ importToken: string; wrappingPublicKeyPem: string }>('GetImportParameters', {
      algorithm: spec.algorithm,
      ...(spec.sizeBits !== undefined ? { sizeBits: spec.sizeBits } : {}),
      ...(spec.curve !== undefined ? { curve: spec.curve } : {}),
      ...(spec.parameterSet !== undefined ? { parameterSet: spec.parameterSet } : {}),
    });
    const wrapped = Buffer.from(wrapKeyMaterial(params.wrappingPublicKeyPem, material)).toString('base64');
    const key = await call.run<ManagedKey>('ImportKey', {
      spec,
      importToken: params.importToken,
      wrappedMaterialBase64: wrapped,
    });
    return { payload: [uidItem(key.id)], uid: key.id };
  } finally {
    material.fill(0);
  }
};
