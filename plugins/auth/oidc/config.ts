import { defineConfig } from '../../../kernel/index.ts';
import { httpsUrlSetting } from '../../net-support/safe-url.ts';

export const oidcConfig = defineConfig({
  auth: {
    oidc: {
      issuerUri: httpsUrlSetting('OIDC issuer; required when auth.kind is oidc. https://, or http:// to a loopback host only (its discovery document\'s jwks_uri likewise).', 'SVC_AUTH_OIDC_ISSUER_URI'),
      audience: { doc: 'Expected aud claim (set one in production).', format: String, default: '', env: 'SVC_AUTH_OIDC_AUDIENCE' },
      jwksCacheTtlSeconds: { doc: 'Key-set cache lifetime.', format: 'nat', default: 3600, env: 'SVC_AUTH_OIDC_JWKS_CACHE_TTL_SECONDS' },
      jwksRefreshCooldownSeconds: { doc: 'Least time between two key-set fetches caused by unknown kids.', format: 'nat', default: 30, env: 'SVC_AUTH_OIDC_JWKS_REFRESH_COOLDOWN_SECONDS' },
      discoveryTimeoutMs: { doc: 'Time limit on fetching the discovery document and the key set.', format: 'nat', default: 5000, env: 'SVC_AUTH_OIDC_DISCOVERY_TIMEOUT_MS' },
    },
  },
});
