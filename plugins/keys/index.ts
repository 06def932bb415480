import {
  definePlugin,
  KERNEL_API_VERSION,
  type OperationContribution,
  operationsPort,
  rootOfTrustPort,
} from '../../kernel/index.ts';
import { keyServicePort } from './key-service.ts';
import { cryptoOperations } from './operations/crypto.ts';
import { withKeyFacts } from './operations/key-facts.ts';
import { withBatches } from './operations/batches.ts';
import { dataKeyOperations } from './operations/data-keys.ts';
import { rawCryptoOperations } from './operations/raw-crypto.ts';
import { lifecycleOperations, rewrapOperation } from './operations/lifecycle.ts';
import { destructionOperations } from './operations/destruction.ts';
import { transferOperations } from './operations/transfer.ts';
import { locateOperation } from './operations/locate.ts';
import { attributeOperations } from './operations/attributes.ts';
import { randomOperation } from './operations/random.ts';
import { jwksOperations } from './operations/jwks.ts';
import { aliasOperations } from './operations/aliases.ts';

export default definePlugin({
  id: 'keys',
  apiVersion: KERNEL_API_VERSION,
  provides: operationsPort,
  description: 'key lifecycle and cryptographic operations (/v1/keys)',
  dependsOn: { service: keyServicePort, rootOfTrust: rootOfTrustPort },
  create: ({ deps }): OperationContribution => ({
    groups: {
      Keys:
        'Create keys and run their lifecycle: activate, rotate, revoke, mark ' +
        'compromised, destroy; read a key and its public key.',
      Crypto:
        'Sign, verify, encrypt, decrypt, wrap and unwrap under a managed key, ' +
        'one item or a batch; data keys for envelope encryption; re-encryption ' +
        'inside the service.',
      Aliases:
        'Name keys by alias (alias/NAME), unique per deployment, accepted ' +
        'wherever a key id is; move an alias to another key to switch every ' +
        'caller at once.',
    },
    operations: [
      ...withBatches(
        withKeyFacts(
          [
            ...lifecycleOperations(deps.service.lifecycle, deps.service.destruction, deps.service.aliasing),
            ...cryptoOperations(deps.service.crypto),
          ],
          deps.service.facts,
        ),
        deps.service.batches,
      ),
      ...withKeyFacts(destructionOperations(deps.service.destruction), deps.service.facts),
      ...withKeyFacts(dataKeyOperations(deps.service.crypto, deps.service.facts), deps.service.facts),
      ...withKeyFacts(rawCryptoOperations(deps.service.crypto), deps.service.facts),
      rewrapOperation(deps.service.wrapping, () => deps.rootOfTrust.currentKekId()),
      // Export reads the key's facts like any operation on :id; import's are the key it would create.
      ...withKeyFacts(transferOperations(deps.service.exporter, deps.service.importer), deps.service.facts),
      locateOperation(deps.service.locator, deps.service.aliasing),
      ...withKeyFacts(attributeOperations(deps.service.attributes), deps.service.facts),
      ...withKeyFacts(jwksOperations(deps.service.jwks), deps.service.facts),
      ...aliasOperations(deps.service.aliasing, deps.service.facts),
      randomOperation,
    ],
  }),
});
