import { definePlugin, KERNEL_API_VERSION } from '../../../kernel/define-plugin.ts';
import { policyPort } from '../../../kernel/ports/policy.ts';
import { DevPolicy } from './dev-policy.ts';

export default definePlugin({
  id: 'policy-dev',
  apiVersion: KERNEL_API_VERSION,
  provides: policyPort,
  kind: 'dev',
  description: 'every Human may perform every operation',
  preflight: (_config, env) => [
    {
      name: 'policy.kind',
      status: env.exposed ? 'warn' : 'ok',
      devGrade: true,
      message: 'policy.kind is dev: every authenticated Human may perform every operation on every key',
      advice: 'set SVC_POLICY_KIND=role-based with role and subject bindings',
    },
  ],
  create: () => new DevPolicy(),
});
