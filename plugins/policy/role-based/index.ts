import { definePlugin, journalPort, KERNEL_API_VERSION, policyPort } from '../../../kernel/index.ts';
import { roleBindingsSettings } from './config.ts';
import { LiveRoleBasedPolicy } from './live-policy.ts';
import { bindingProblems, type Bindings } from './role-policy.ts';

export default definePlugin({
  id: 'policy-role-based',
  apiVersion: KERNEL_API_VERSION,
  provides: policyPort,
  kind: 'role-based',
  description: 'operations granted by group (role) and subject bindings, versioned in the journal (PUT /v1/policy)',
  // The bindings live in the journal's storage, which every node shares.
  dependsOn: { journal: journalPort },
  settings: roleBindingsSettings,
  configure: ({ policy }) => ({
    roles: policy.roleBindings as Bindings,
    subjects: policy.subjectBindings as Bindings,
    refreshMs: policy.refreshMs,
  }),
  preflight: ({ roles, subjects }) => {
    const problems = bindingProblems(roles, subjects);
    return problems.length
      ? problems.map((message) => ({
          name: 'policy.bindings',
          status: 'fail' as const,
          message,
          advice: 'bind groups or subjects to Operation names (docs/config.md)',
        }))
      : [
          {
            name: 'policy.bindings',
            status: 'ok' as const,
            message: `${Object.keys(roles).length} role and ${Object.keys(subjects).length} subject bindings`,
          },
        ];
  },
  create: ({ config, deps, logger, clock }) =>
    new LiveRoleBasedPolicy({
      store: deps.journal.policies,
      seed: { roleBindings: config.roles, subjectBindings: config.subjects },
      refreshMs: config.refreshMs,
      logger,
      clock,
    }),
});
