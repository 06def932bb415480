import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey } from 'jose';
import {
  type AgentRegistry,
  type Authenticator,
  bearerToken,
  CLOCK_SKEW_SECONDS,
  type CredentialSource,
  type Principal,
  principalFromVerifiedToken,
  type RevocationList,
  SVC_TOKEN_ISSUER,
  type SvcClaims,
  SvcError,
  tokenRejection,
} from '../../../kernel/index.ts';
import { requireSafeUrl } from '../../net-support/safe-url.ts';

export interface OidcOptions {
  issuer: string;
  audience: string;
  jwksCacheTtlSeconds: number;
  jwksRefreshCooldownSeconds: number;
  discoveryTimeoutMs: number;
  /** SVC_AUTH_HMAC_SECRET, to accept the service's own agent tokens; empty when not set. */
  agentSecret: string;
}

/**
 * Asymmetric algorithms only: alg none and HS* (for example HS256 forged with the issuer's public key) never verify.
 */
const ISSUER_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'];

/**
 * Bearer tokens from an OpenID Connect issuer. The discovery document is read once at start
 * (bounded; an unreachable issuer fails the boot); the key set is cached for the TTL and fetched again
 * when a token names an unknown kid, at most once per cooldown so random kids cannot hammer the issuer.
 * The service's own agent tokens (HS256, iss svc-kms) are accepted with the HMAC secret, and only those:
 * an HS256 token claiming to be a Human or a Service is 401, as is an issuer's token claiming to be an agent.
 */
export class OidcAuthenticator implements Authenticator {
  /** The configured issuer (auth.oidc.issuerUri): the authorization server doors such as MCP advertise. */
  readonly issuer: string;
  private jwks: JWTVerifyGetKey | undefined;
  private readonly agentKey: Uint8Array | undefined;

  constructor(
    private readonly options: OidcOptions,
    private readonly revocation: RevocationList,
    private readonly agents: AgentRegistry,
  ) {
    this.issuer = options.issuer;
    this.agentKey = options.agentSecret ? new TextEncoder().encode(options.agentSecret) : undefined;
  }

  async start(): Promise<void> {
    const url = `${this.options.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    let doc: { issuer?: string; jwks_uri?: string };
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(this.options.discoveryTimeoutMs) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      doc = (await res.json()) as typeof doc;
    } catch (err) {
      throw new Error(`OIDC discovery at ${url} failed: ${(err as Error).message}`);
    }
    if (!doc.jwks_uri) throw new Error(`OIDC discovery at ${url} names no jwks_uri`);
    if (doc.issuer !== this.options.issuer)
      throw new Error(`OIDC discovery at ${url} names issuer ${doc.issuer}, not the configured ${this.options.issuer}`);
    this.jwks = createRemoteJWKSet(requireSafeUrl(`OIDC discovery at ${url}: jwks_uri`, doc.jwks_uri), {
      cacheMaxAge: this.options.jwksCacheTtlSeconds * 1000,
      cooldownDuration: this.options.jwksRefreshCooldownSeconds * 1000,
      timeoutDuration: this.options.discoveryTimeoutMs,
    });
  }

  async authenticate(request: CredentialSource): Promise<Principal> {
    const token = bearerToken(request);
    let claims: SvcClaims;
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
      if (alg === 'HS256' && this.agentKey) {
        ({ payload: claims } = await jwtVerify<SvcClaims>(token, this.agentKey, {
          algorithms: ['HS256'],
          issuer: SVC_TOKEN_ISSUER,
          clockTolerance: CLOCK_SKEW_SECONDS,
          requiredClaims: ['sub', 'exp'],
        }));
        // The agent secret signs agent tokens only: an HS256 token claiming a Human or a Service is refused.
        if (claims.svc_kind !== 'agent')
          throw new SvcError(
            'Unauthorized',
            'invalid token: HS256 tokens are accepted only as agent tokens issued by this service',
          );
      } else {
        if (!this.jwks) throw new SvcError('Unauthorized', 'OIDC authenticator is not started');
        ({ payload: claims } = await jwtVerify<SvcClaims>(token, this.jwks, {
          algorithms: ISSUER_ALGORITHMS,
          issuer: this.options.issuer,
          ...(this.options.audience ? { audience: this.options.audience } : {}),
          clockTolerance: CLOCK_SKEW_SECONDS,
          requiredClaims: ['sub', 'exp'],
        }));
      }
    } catch (err) {
      throw tokenRejection(err);
    }
    return principalFromVerifiedToken(claims, alg, this.revocation, this.agents);
  }
}
