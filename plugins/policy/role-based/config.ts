import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';

export const roleBindingsSettings = defineSettings(
  Type.Object({
    policy: Type.Object({
      roleBindings: Type.Record(Type.String(), Type.Unknown(), {
        description:
          'role-based: group -> list of Operation names, or {operations, keys: ' +
          '[owner:self | name:GLOB | id:UUID], agents: ["*" | agent id]} with ' +
          'keys, agents or both (JSON in env); listing every agent and revoking ' +
          "others' agents need agents.",
        default: {},
      }),
      subjectBindings: Type.Record(Type.String(), Type.Unknown(), {
        description:
          'role-based: subject -> list of Operation names, or {operations, keys: [...], agents: [...]} (JSON in env).',
        default: {},
      }),
    }),
  }),
);
