import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../kernel/index.ts';

export const autoResponseSettings = defineSettings(
  Type.Object({
    autoResponse: Type.Object({
      enabled: Type.Boolean({
        description: 'Act on detector findings (false: detectors still run, nothing is done).',
        default: true,
      }),
      cooldownSeconds: Type.Integer({
        minimum: 0,
        description: 'At most one action per (actor, action) in this time.',
        default: 60,
      }),
      revokeKinds: Type.String({
        description: 'Principal kinds whose High findings disable the key they used (others get Alert).',
        default: 'Agent',
      }),
      rules: Type.Array(Type.Unknown(), {
        description:
          'Rule lines `DETECTOR:SEVERITY -> ACTION [for KIND,...]`, first match wins; empty means the shipped rules.',
        default: [],
        env: false,
      }),
    }),
  }),
);
