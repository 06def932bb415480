import {
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  generateKeyPair,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { promisify } from 'node:util';
import type { KeySpec } from '../../../kernel/index.ts';
import { nodeKeyType } from './post-quantum.ts';

const generateKeyPairAsync = promisify(generateKeyPair);

const NODE_CURVE: Record<string, string> = {
  'P-256': 'prime256v1',
  'P-384': 'secp384r1',
  'P-521': 'secp521r1',
  secp256k1: 'secp256k1',
};

/**
 * Fresh key material as bytes: raw secret for AES and HMAC, PKCS#8 DER for private keys. Always the
 * async generators: they keep the event loop free, and the sync ones were seen to hang on Node 20.
 */
export async function generateMaterial(spec: KeySpec): Promise<Buffer> {
  if (spec.algorithm === 'AES' || spec.algorithm === 'HMAC') return randomBytes(spec.sizeBits / 8);
  let pair: { privateKey: KeyObject };
  if (spec.algorithm === 'RSA')
    pair = await generateKeyPairAsync('rsa', { modulusLength: spec.sizeBits, publicExponent: 0x10001 });
  else if (spec.algorithm === 'EC') pair = await generateKeyPairAsync('ec', { namedCurve: NODE_CURVE[spec.curve!]! });
  else if (spec.parameterSet) pair = await generateKeyPairAsync(nodeKeyType(spec.parameterSet) as 'ed25519');
  else if (spec.curve === 'Ed448') pair = await generateKeyPairAsync('ed448');
  else pair = await generateKeyPairAsync('ed25519');
  return pair.privateKey.export({ type: 'pkcs8', format: 'der' });
}

/** Material parsed once into what node:crypto uses; cached per key version by the caller. */
export interface ParsedMaterial {
  secret?: Buffer;
  privateKey?: KeyObject;
  publicKey?: KeyObject;
}

export function parseMaterial(spec: KeySpec, material: Buffer): ParsedMaterial {
  if (spec.algorithm === 'AES' || spec.algorithm === 'HMAC')
    return { secret: material, privateKey: createSecretKey(material) };
  const privateKey = createPrivateKey({ key: material, format: 'der', type: 'pkcs8' });
  return { privateKey, publicKey: createPublicKey(privateKey) };
}
