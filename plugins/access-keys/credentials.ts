import {
  accessKeyCredentialsPort,
  definePlugin,
  journalPort,
  KERNEL_API_VERSION,
  rootOfTrustPort,
} from '../../kernel/index.ts';
import { AccessKeyResolver } from './access-key-resolver.ts';

/**
 * What a door that verifies Signature Version 4 needs: an access key's principal and secret, read from the
 * journal at every call (a delete on any node is seen at once), the secret unwrapped once per key.
 */
export default definePlugin({
  id: 'access-key-credentials',
  apiVersion: KERNEL_API_VERSION,
  provides: accessKeyCredentialsPort,
  description: 'resolves an access key to its principal and secret for doors that verify AWS-style signatures',
  dependsOn: { journal: journalPort, rootOfTrust: rootOfTrustPort },
  create: ({ deps }) => new AccessKeyResolver(deps.journal.accessKeys, deps.rootOfTrust),
});
