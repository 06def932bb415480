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
      refreshMs: Type.Integer({
        minimum: 50,
        maximum: 60_000,
        description:
          'role-based: how often each node reads the journal for a newer policy version (PUT /v1/policy); a ' +
          'new version is applied on every node within this plus one read. The bindings above seed the ' +
          'journal only when it holds no version.',
        default: 1000,
      }),
    }),
  }),
);
