import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';
import { outboundUrlSetting } from '../../net-support/safe-url.ts';

export const oidcSettings = defineSettings(
  Type.Object({
    auth: Type.Object({
      oidc: Type.Object({
        issuerUri: outboundUrlSetting(
          'OIDC issuer; required when auth.kind is oidc. https://, or http:// to ' +
            "a loopback host only (its discovery document's jwks_uri likewise).",
        ),
        audience: Type.String({ description: 'Expected aud claim (set one in production).', default: '' }),
        jwksCacheTtlSeconds: Type.Integer({ minimum: 0, description: 'Key-set cache lifetime.', default: 3600 }),
        jwksRefreshCooldownSeconds: Type.Integer({
          minimum: 0,
          description: 'Least time between two key-set fetches caused by unknown kids.',
          default: 30,
        }),
        discoveryTimeoutMs: Type.Integer({
          minimum: 0,
          description: 'Time limit on fetching the discovery document and the key set.',
          default: 5000,
        }),
      }),
    }),
  }),
);
