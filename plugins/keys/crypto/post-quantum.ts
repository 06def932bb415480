import { generateKeyPairSync, sign as nodeSign, type KeyObject } from 'node:crypto';
import { ML_DSA_SETS, type ParameterSet, SvcError } from '../../../kernel/index.ts';

/** Security strength in bits of each parameter set (NIST categories 2, 3, 5 for ML-DSA; 1, 3, 5 for SLH-DSA). */
export const PQ_STRENGTH: Record<ParameterSet, number> = {
  'ML-DSA-44': 128,
  'ML-DSA-65': 192,
  'ML-DSA-87': 256,
  'SLH-DSA-SHA2-128s': 128,
  'SLH-DSA-SHA2-128f': 128,
  'SLH-DSA-SHA2-192s': 192,
  'SLH-DSA-SHA2-192f': 192,
  'SLH-DSA-SHA2-256s': 256,
  'SLH-DSA-SHA2-256f': 256,
  'SLH-DSA-SHAKE-128s': 128,
  'SLH-DSA-SHAKE-128f': 128,
  'SLH-DSA-SHAKE-192s': 192,
  'SLH-DSA-SHAKE-192f': 192,
  'SLH-DSA-SHAKE-256s': 256,
  'SLH-DSA-SHAKE-256f': 256,
};

/** node:crypto's key type for a parameter set (`ml-dsa-65`, `slh-dsa-sha2-128s`). */
export const nodeKeyType = (set: ParameterSet) => set.toLowerCase();

const supported = new Map<string, boolean>();

/**
 * Whether this runtime's node:crypto makes keys of the family: Node 24 (OpenSSL 3.5) does, Node 20 does
 * not. Probed once per family by making a key of its fastest set (a millisecond or two).
 */
function runtimeHas(algorithm: 'ML-DSA' | 'SLH-DSA'): boolean {
  let has = supported.get(algorithm);
  if (has === undefined) {
    try {
      generateKeyPairSync((algorithm === 'ML-DSA' ? 'ml-dsa-44' : 'slh-dsa-sha2-128f') as never);
      has = true;
    } catch {
      has = false;
    }
    supported.set(algorithm, has);
  }
  return has;
}

/** Refuses a post-quantum key on a runtime without it, naming the Node version that has it. */
export function requirePostQuantum(algorithm: 'ML-DSA' | 'SLH-DSA'): void {
  if (!runtimeHas(algorithm))
    throw new SvcError(
      'InvalidField',
      `${algorithm} keys need Node 24 (its OpenSSL 3.5 has ML-DSA and SLH-DSA); this service runs Node ${process.version}`,
    );
}

export const isMlDsa = (set: string | undefined) => (ML_DSA_SETS as readonly string[]).includes(set ?? '');

/**
 * A post-quantum signature, made on libuv's thread pool: an SLH-DSA "s" signature takes from half a second
 * to two seconds of CPU, which on the event loop would hold every other call that long.
 */
export function signPostQuantum(privateKey: KeyObject, message: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    nodeSign(null, message, privateKey, (err, signature) => (err ? reject(err) : resolve(signature))),
  );
}
