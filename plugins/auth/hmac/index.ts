import type { BaseConfig } from '../../../config/schema.ts';
import { isUsableHmacSecret, MIN_HMAC_SECRET_BYTES } from '../../../kernel/auth/bearer.ts';
import { definePlugin, KERNEL_API_VERSION } from '../../../kernel/define-plugin.ts';
import { authenticatorPort } from '../../../kernel/ports/authenticator.ts';
import { journalPort } from '../../../kernel/ports/journal.ts';
import { revocationPort } from '../../../kernel/ports/revocation.ts';
import { HmacAuthenticator } from './hmac-authenticator.ts';

export default definePlugin({
  id: 'auth-hmac',
  apiVersion: KERNEL_API_VERSION,
  provides: authenticatorPort,
  kind: 'hmac',
  description: 'HS256 bearer tokens verified with SVC_AUTH_HMAC_SECRET',
  dependsOn: { revocation: revocationPort, journal: journalPort },
  configSlice: (all: BaseConfig) => ({ secret: all.auth.hmacSecret }),
  preflight: ({ secret }) => [
    isUsableHmacSecret(secret)
      ? { name: 'auth.hmacSecret', status: 'ok', message: `HS256 secret is at least ${MIN_HMAC_SECRET_BYTES} bytes` }
      : { name: 'auth.hmacSecret', status: 'fail', message: `auth.kind is hmac but SVC_AUTH_HMAC_SECRET is ${Buffer.byteLength(secret)} bytes; at least ${MIN_HMAC_SECRET_BYTES} are required`, advice: 'openssl rand -base64 48' },
  ],
  create: ({ config, deps }) => new HmacAuthenticator(config.secret, deps.revocation, deps.journal.agents),
});
