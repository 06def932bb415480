import { authenticatorPort, definePlugin, devGradeFinding, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { DevAuthenticator } from './dev-authenticator.ts';

export default definePlugin({
  id: 'auth-dev',
  apiVersion: KERNEL_API_VERSION,
  provides: authenticatorPort,
  kind: 'dev',
  description: 'X-Svc-User header names a Human principal (workstation use only)',
  preflight: (_config, env) => [
    devGradeFinding(
      'auth.kind',
      env.exposed,
      'auth.kind is dev: any caller reaching the port can claim any identity with X-Svc-User',
      'set SVC_AUTH_KIND=hmac or oidc, or bind to 127.0.0.1',
    ),
  ],
  create: () => new DevAuthenticator(),
});
