import { definePlugin, KERNEL_API_VERSION, type OperationContribution, operationsPort, rootOfTrustPort } from '../../kernel/index.ts';
import { keyServicePort } from './key-service.ts';
import { cryptoOperations } from './operations/crypto.ts';
import { withKeyFacts } from './operations/key-facts.ts';
import { lifecycleOperations, rewrapOperation } from './operations/lifecycle.ts';
import { locateOperation } from './operations/locate.ts';

export default definePlugin({
  id: 'keys',
  apiVersion: KERNEL_API_VERSION,
  provides: operationsPort,
  description: 'key lifecycle and cryptographic operations (/v1/keys)',
  dependsOn: { service: keyServicePort, rootOfTrust: rootOfTrustPort },
  create: ({ deps }): OperationContribution => ({
    groups: {
      Keys: 'Create keys and run their lifecycle: activate, rotate, revoke, mark compromised, destroy; read a key and its public key.',
      Crypto: 'Sign, verify, encrypt, decrypt, wrap and unwrap under a managed key.',
    },
    operations: [
      ...withKeyFacts([...lifecycleOperations(deps.service.lifecycle), ...cryptoOperations(deps.service.crypto)], deps.service.facts),
      rewrapOperation(deps.service.wrapping, () => deps.rootOfTrust.currentKekId()),
      locateOperation(deps.service.locator),
    ],
  }),
});
