import { defineConfig } from '../../../kernel/config-values.ts';

export const roleBindingsConfig = defineConfig({
  policy: {
    roleBindings: { doc: 'role-based: group -> list of Operation names, or {operations, keys: [owner:self | name:GLOB | id:UUID]} (JSON in env).', format: Object, default: {}, env: 'SVC_POLICY_ROLE_BINDINGS' },
    subjectBindings: { doc: 'role-based: subject -> list of Operation names, or {operations, keys: [...]} (JSON in env).', format: Object, default: {}, env: 'SVC_POLICY_SUBJECT_BINDINGS' },
  },
});
