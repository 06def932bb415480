import { defineConfig } from '../../../kernel/config-values.ts';

export const roleBindingsConfig = defineConfig({
  policy: {
    roleBindings: { doc: 'role-based: group -> list of Operation names (JSON in env).', format: Object, default: {}, env: 'SVC_POLICY_ROLE_BINDINGS' },
    subjectBindings: { doc: 'role-based: subject -> list of Operation names (JSON in env).', format: Object, default: {}, env: 'SVC_POLICY_SUBJECT_BINDINGS' },
  },
});
