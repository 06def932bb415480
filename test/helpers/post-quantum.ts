import { generateKeyPairSync } from 'node:crypto';

/** Whether this runtime's node:crypto makes ML-DSA keys (Node 24 with OpenSSL 3.5; Node 20 does not). */
export const runtimeHasPostQuantum = (() => {
  try {
    generateKeyPairSync('ml-dsa-44' as never);
    return true;
  } catch {
    return false;
  }
})();
