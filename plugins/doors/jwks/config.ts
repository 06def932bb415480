import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';

export const jwksSettings = defineSettings(
  Type.Object({
    jwks: Type.Object({
      enabled: Type.Boolean({
        description:
          'Serve /.well-known/jwks.json without authentication: the public keys of every key tagged jwks=public ' +
          '(each version it holds, kid <key id>:<version>), for verifiers of the JWTs POST /v1/keys/{id}/sign-jwt makes.',
        default: true,
      }),
      cacheSeconds: Type.Integer({
        minimum: 1,
        maximum: 3600,
        description:
          'How long the public key set is served before it is read again (and its Cache-Control max-age): a key ' +
          'untagged, disabled or destroyed leaves it within this period.',
        default: 60,
      }),
    }),
  }),
);
