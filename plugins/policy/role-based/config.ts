import { defineConfig } from '../../../kernel/index.ts';

export const roleBindingsConfig = defineConfig({
  policy: {
    roleBindings: { doc: 'role-based: group -> list of Operation names, or {operations, keys: [owner:self | name:GLOB | id:UUID], agents: ["*" | agent id]} with keys, agents or both (JSON in env); listing every agent and revoking others\' agents need agents.', format: Object, default: {}, env: 'SVC_POLICY_ROLE_BINDINGS' },
    subjectBindings: { doc: 'role-based: subject -> list of Operation names, or {operations, keys: [...], agents: [...]} (JSON in env).', format: Object, default: {}, env: 'SVC_POLICY_SUBJECT_BINDINGS' },
  },
});
