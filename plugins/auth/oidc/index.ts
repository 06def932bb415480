import {
  authenticatorPort,
  definePlugin,
  isUsableHmacSecret,
  journalPort,
  KERNEL_API_VERSION,
  type PreflightNode,
  revocationPort,
} from '../../../kernel/index.ts';
import { OidcAuthenticator, type OidcOptions } from './oidc-authenticator.ts';
import { oidcSettings } from './config.ts';

export default definePlugin({
  id: 'auth-oidc',
  apiVersion: KERNEL_API_VERSION,
  provides: authenticatorPort,
  kind: 'oidc',
  description: "bearer tokens from an OpenID Connect issuer (RS/ES only), plus the service's own agent tokens",
  dependsOn: { revocation: revocationPort, journal: journalPort },
  settings: oidcSettings,
  configure: ({ auth: { oidc } }, deployment): OidcOptions => ({
    issuer: oidc.issuerUri,
    audience: oidc.audience,
    jwksCacheTtlSeconds: oidc.jwksCacheTtlSeconds,
    jwksRefreshCooldownSeconds: oidc.jwksRefreshCooldownSeconds,
    discoveryTimeoutMs: oidc.discoveryTimeoutMs,
    agentSecret: isUsableHmacSecret(deployment.hmacSecret) ? deployment.hmacSecret : '',
  }),
  preflight: (o, env) => {
    const nodes: PreflightNode[] = [];
    if (!o.issuer)
      nodes.push({
        name: 'auth.oidc.issuerUri',
        status: 'fail',
        message: 'auth.kind is oidc but SVC_AUTH_OIDC_ISSUER_URI is empty',
        advice: 'set it to the issuer URL (the iss of its tokens)',
      });
    if (!o.audience)
      nodes.push({
        name: 'auth.oidc.audience',
        status: env.exposed ? 'warn' : 'ok',
        message: 'no expected audience: tokens the issuer minted for other services are accepted too',
        advice: 'set SVC_AUTH_OIDC_AUDIENCE in production',
      });
    return nodes;
  },
  create: ({ config, deps }) => new OidcAuthenticator(config, deps.revocation, deps.journal.agents),
});
