import {
  definePlugin,
  journalPort,
  KERNEL_API_VERSION,
  type OperationContribution,
  operationsPort,
  rootOfTrustPort,
} from '../../kernel/index.ts';
import { AccessKeyIssuer } from './access-key-issuer.ts';
import { accessKeyOperations } from './access-key-operations.ts';

/**
 * POST, GET and DELETE /v1/access-keys: the credentials AWS SDKs sign Signature Version 4 requests with.
 * The doors that verify such signatures resolve keys through `accessKeyCredentialsPort`, which the
 * sibling manifest `credentials.ts` provides (one plugin provides one port).
 */
export default definePlugin({
  id: 'access-keys',
  apiVersion: KERNEL_API_VERSION,
  provides: operationsPort,
  description: 'access keys for AWS Signature Version 4: create, list, delete (/v1/access-keys)',
  dependsOn: { journal: journalPort, rootOfTrust: rootOfTrustPort },
  create: ({ deps, clock }): OperationContribution => ({
    groups: {
      'Access keys':
        'Create, list and delete the access keys AWS SDKs and the AWS CLI sign requests with (Signature ' +
        'Version 4); the secret is shown once, in the answer to its create (Human only).',
    },
    operations: accessKeyOperations(new AccessKeyIssuer(deps.journal.accessKeys, deps.rootOfTrust, clock)),
  }),
});
