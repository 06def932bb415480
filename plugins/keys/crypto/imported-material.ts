import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { type KeySpec, SvcError } from '../../../kernel/index.ts';
import { nodeKeyType } from './post-quantum.ts';

const NODE_CURVE: Record<string, string> = {
  'P-256': 'prime256v1',
  'P-384': 'secp384r1',
  'P-521': 'secp521r1',
  secp256k1: 'secp256k1',
};
const CURVE_NAME: Record<string, string> = {
  prime256v1: 'P-256',
  secp384r1: 'P-384',
  secp521r1: 'P-521',
  secp256k1: 'secp256k1',
};
const KIND: Record<string, string> = {
  rsa: 'an RSA',
  'rsa-pss': 'an RSA-PSS-only',
  ec: 'an EC',
  ed25519: 'an Ed25519',
  ed448: 'an Ed448',
  x25519: 'an X25519',
  x448: 'an X448',
  dsa: 'a DSA',
  dh: 'a DH',
};
const SELF_TEST_MESSAGE = Buffer.from('svc-kms import pairwise consistency test');

const refuse = (why: string) => new SvcError('InvalidField', `the imported material does not match the spec: ${why}`);

/**
 * Checks material brought by a caller against the spec it is to become, and returns the bytes to
 * store: the raw secret for AES and HMAC (exactly sizeBits / 8 bytes), or the private key's PKCS#8 DER
 * as node:crypto writes it (the same bytes OpenSSL and node:crypto produce for a key). A private key
 * must be of the spec's type, size or curve and must pass a pairwise consistency test (sign, then
 * verify with the public key derived from it): a key whose parts disagree would sign wrongly, and a
 * faulty RSA-CRT signature gives its factors away.
 */
export function checkImportedMaterial(spec: Omit<KeySpec, 'name'>, material: Buffer): Buffer {
  if (spec.algorithm === 'AES' || spec.algorithm === 'HMAC') {
    const bytes = spec.sizeBits / 8;
    if (material.length !== bytes)
      throw refuse(`it is ${material.length} bytes; ${spec.algorithm}-${spec.sizeBits} material is ${bytes} raw bytes`);
    return Buffer.from(material);
  }
  const key = parsePrivateKey(material);
  const type = key.asymmetricKeyType ?? 'unknown';
  const details = key.asymmetricKeyDetails ?? {};
  if (spec.algorithm === 'RSA') {
    if (type !== 'rsa') throw refuse(`it is ${KIND[type] ?? `a ${type}`} private key; the spec asks for RSA`);
    if (details.modulusLength !== spec.sizeBits)
      throw refuse(`it is an RSA-${details.modulusLength} key; the spec asks for RSA-${spec.sizeBits}`);
    // Small public exponents are what FIPS 186 forbids (e > 2^16); RSA keys the service makes use 65537.
    const e = details.publicExponent ?? 0n;
    if (e <= 65536n || e % 2n === 0n) throw refuse(`its public exponent ${e} is not an odd number above 65536`);
  } else if (spec.algorithm === 'EC') {
    if (type !== 'ec')
      throw refuse(`it is ${KIND[type] ?? `a ${type}`} private key; the spec asks for EC ${spec.curve}`);
    if (details.namedCurve !== NODE_CURVE[spec.curve!])
      throw refuse(
        `it is an EC key on ${CURVE_NAME[details.namedCurve ?? ''] ?? details.namedCurve ?? 'an unnamed curve'}; the spec asks for ${spec.curve}`,
      );
  } else if (spec.parameterSet) {
    if (type !== nodeKeyType(spec.parameterSet))
      throw refuse(`it is ${KIND[type] ?? `a ${type}`} private key; the spec asks for ${spec.parameterSet}`);
  } else if (type !== (spec.curve === 'Ed448' ? 'ed448' : 'ed25519')) {
    throw refuse(`it is ${KIND[type] ?? `a ${type}`} private key; the spec asks for ${spec.curve}`);
  }
  selfTest(spec, key);
  return key.export({ type: 'pkcs8', format: 'der' });
}

function parsePrivateKey(material: Buffer): KeyObject {
  try {
    return createPrivateKey({ key: material, format: 'der', type: 'pkcs8' });
  } catch {
    // A public key in place of the private one is a common mistake: say so rather than "not a key".
    let isPublic = false;
    try {
      createPublicKey({ key: material, format: 'der', type: 'spki' });
      isPublic = true;
    } catch {
      /* not a public key either */
    }
    throw refuse(
      isPublic
        ? 'it is a public key (SPKI); import needs the private key as unencrypted PKCS#8 DER'
        : 'it is not an unencrypted PKCS#8 DER private key (PEM, PKCS#1, SEC1 and ' +
            'encrypted PKCS#8 are not accepted: convert with `openssl pkcs8 -topk8 ' +
            '-nocrypt -outform DER`)',
    );
  }
}

function selfTest(spec: Omit<KeySpec, 'name'>, key: KeyObject): void {
  // EdDSA, ML-DSA and SLH-DSA sign the message itself.
  const algorithm = spec.algorithm === 'RSA' || spec.algorithm === 'EC' ? 'sha256' : null;
  let ok = false;
  try {
    const signature = sign(algorithm, SELF_TEST_MESSAGE, key);
    ok = verify(algorithm, SELF_TEST_MESSAGE, createPublicKey(key), signature);
  } catch {
    /* a key that cannot sign fails the test */
  }
  if (!ok)
    throw refuse(
      'it fails the pairwise consistency test (a signature made with it does ' +
        'not verify with its own public key): its parts disagree',
    );
}
