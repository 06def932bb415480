import {
  definePlugin,
  KERNEL_API_VERSION,
  type OperationContribution,
  operationsPort,
  policyPort,
} from '../../../kernel/index.ts';
import { policyOperations } from './policy-operations.ts';

/**
 * GET and PUT /v1/policy. Wired with every policy kind, so that a deployment on the dev policy is told
 * why there is no policy to change (409) rather than that the route does not exist.
 */
export default definePlugin({
  id: 'policy-api',
  apiVersion: KERNEL_API_VERSION,
  provides: operationsPort,
  description: "GET and PUT /v1/policy: the role-based policy's bindings, versioned in the journal",
  dependsOn: { policy: policyPort },
  create: ({ deps, clock }): OperationContribution => ({
    groups: {
      Policy:
        "Read and replace the role-based policy's bindings without a restart (replacing is Human only, " +
        'with If-Match).',
    },
    operations: policyOperations(deps.policy, clock),
  }),
});
