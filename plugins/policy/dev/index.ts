import { definePlugin, devGradeFinding, KERNEL_API_VERSION, policyPort } from '../../../kernel/index.ts';
import { DevPolicy } from './dev-policy.ts';

export default definePlugin({
  id: 'policy-dev',
  apiVersion: KERNEL_API_VERSION,
  provides: policyPort,
  kind: 'dev',
  description: 'every Human may perform every operation',
  preflight: (_config, env) => [
    devGradeFinding(
      'policy.kind',
      env.exposed,
      'policy.kind is dev: every authenticated Human may perform every operation on every key',
      'set SVC_POLICY_KIND=role-based with role and subject bindings',
    ),
  ],
  create: () => new DevPolicy(),
});
