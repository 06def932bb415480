import { SVC_TOKEN_ISSUER, type SvcClaims } from '../model/token-claims.ts';

/** The audience of the tokens the service signs itself. */
export const SVC_TOKEN_AUDIENCE = 'svc-kms';
/** The longest lifetime of an agent token (exp - iat), in seconds. */
export const MAX_AGENT_TTL_SECONDS = 86_400;
/**
 * How long a revocation of unknown expiry is kept. Agent tokens live at most this long; a longer-lived
 * token revoked without its expiresAt is refused for this long.
 */
export const UNKNOWN_EXPIRY_SECONDS = 86_400;
/** The longest jti accepted anywhere (tokens and POST /v1/tokens/revoke). */
export const MAX_JTI_LENGTH = 128;

/**
 * Why a verified token may not be used, or undefined when it may. Agent tokens come from this service
 * only, whatever the auth kind: HS256, iss and aud svc-kms, a parent, iat and exp at most a day apart,
 * and a jti. So a token from an identity provider cannot pose as an agent, and an agent token cannot
 * pose as anything else (the HS256 path of oidc mode accepts nothing but agents). Every jti is bounded,
 * so no lookup key in the revocation list is larger than 128 characters.
 */
export function agentClaimProblem(claims: SvcClaims, alg: string | undefined): string | undefined {
  if (
    claims.jti !== undefined &&
    (typeof claims.jti !== 'string' || claims.jti.length === 0 || claims.jti.length > MAX_JTI_LENGTH)
  ) {
    return `jti must be 1..${MAX_JTI_LENGTH} characters`;
  }
  if (claims.svc_kind !== 'agent') return undefined;
  if (alg !== 'HS256') return 'agent tokens must be HS256 tokens issued by this service';
  if (claims.iss !== SVC_TOKEN_ISSUER) return `agent tokens must have iss ${SVC_TOKEN_ISSUER}`;
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!aud.includes(SVC_TOKEN_AUDIENCE)) return `agent tokens must have aud ${SVC_TOKEN_AUDIENCE}`;
  if (typeof claims.svc_parent !== 'string' || claims.svc_parent === '') return 'agent token has no svc_parent claim';
  if (typeof claims.jti !== 'string') return 'agent token has no jti';
  if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number') return 'agent token needs iat and exp';
  if (claims.exp - claims.iat > MAX_AGENT_TTL_SECONDS)
    return `agent token lives longer than ${MAX_AGENT_TTL_SECONDS} s`;
  if (
    claims.svc_parent_jti !== undefined &&
    (typeof claims.svc_parent_jti !== 'string' || claims.svc_parent_jti.length > MAX_JTI_LENGTH)
  ) {
    return `svc_parent_jti must be at most ${MAX_JTI_LENGTH} characters`;
  }
  return undefined;
}
