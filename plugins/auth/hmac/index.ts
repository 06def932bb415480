import {
  authenticatorPort,
  definePlugin,
  isUsableHmacSecret,
  journalPort,
  KERNEL_API_VERSION,
  MIN_HMAC_SECRET_BYTES,
  revocationPort,
} from '../../../kernel/index.ts';
import { HmacAuthenticator } from './hmac-authenticator.ts';

export default definePlugin({
  id: 'auth-hmac',
  apiVersion: KERNEL_API_VERSION,
  provides: authenticatorPort,
  kind: 'hmac',
  description: 'HS256 bearer tokens verified with SVC_AUTH_HMAC_SECRET',
  dependsOn: { revocation: revocationPort, journal: journalPort },
  configure: (_settings, deployment) => ({ secret: deployment.hmacSecret }),
  preflight: ({ secret }) => [
    isUsableHmacSecret(secret)
      ? { name: 'auth.hmacSecret', status: 'ok', message: `HS256 secret is at least ${MIN_HMAC_SECRET_BYTES} bytes` }
      : {
          name: 'auth.hmacSecret',
          status: 'fail',
          message: `auth.kind is hmac but SVC_AUTH_HMAC_SECRET is ${Buffer.byteLength(secret)} bytes; at least ${MIN_HMAC_SECRET_BYTES} are required`,
          advice: 'openssl rand -base64 48',
        },
  ],
  create: ({ config, deps }) => new HmacAuthenticator(config.secret, deps.revocation, deps.journal.agents),
});
