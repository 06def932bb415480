import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';

export const redisRevocationSettings = defineSettings(
  Type.Object({
    revocation: Type.Object({
      kvUri: Type.String({
        description: 'kv-store URI; required when revocation.kind is kv-store.',
        default: '',
        sensitive: true,
      }),
      kvKeyPrefix: Type.String({ description: 'kv-store key prefix.', default: 'svc:revoked:' }),
    }),
  }),
);
