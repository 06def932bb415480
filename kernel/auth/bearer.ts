import { SvcError } from '../errors.ts';
import { agentClaimProblem } from './agent-claims.ts';
import { principalFromClaims, type SvcClaims } from '../model/token-claims.ts';
import { isOperation } from '../model/operation.ts';
import type { Principal } from '../model/index.ts';
import type { AgentRegistry } from '../ports/agent-registry.ts';
import type { CredentialSource } from '../ports/authenticator.ts';
import type { RevocationList } from '../ports/revocation.ts';

/** An HS256 secret shorter than this is refused (and cannot sign agent tokens). */
export const MIN_HMAC_SECRET_BYTES = 32;

export const isUsableHmacSecret = (secret: string): boolean => Buffer.byteLength(secret) >= MIN_HMAC_SECRET_BYTES;

/** JWT time checks allow this much clock skew. */
export const CLOCK_SKEW_SECONDS = 30;

/** The token of an `Authorization: Bearer <JWT>` header; 401 when there is none. */
export function bearerToken(request: CredentialSource): string {
  const header = request.header('Authorization') ?? '';
  const m = /^Bearer\s+([A-Za-z0-9_\-.]+)$/i.exec(header.trim());
  if (!m) throw new SvcError('Unauthorized', 'missing or malformed Authorization: Bearer <token> header');
  return m[1]!;
}

/**
 * The shared tail of every token authenticator: the agent-token rules, claims to Principal, then the
 * revocation list for the token and, for an agent, its parent's token (only after signature and claims
 * passed; tokens without jti are not checked), then, for an agent, the agent registry. Messages name
 * what failed, never the token.
 */
export async function principalFromVerifiedToken(
  claims: SvcClaims,
  alg: string | undefined,
  revocation: RevocationList,
  agents: AgentRegistry,
): Promise<Principal> {
  // An agent token's iat is the issuing node's clock, and the agent registry (checked below) holds every
  // token it issued, so only tokens from outside signers are held to this node's real time.
  const issuedLater = claims.svc_kind === 'agent' ? undefined : issuedInTheFuture(claims);
  if (issuedLater) throw new SvcError('Unauthorized', `invalid token: ${issuedLater}`);
  const problem = agentClaimProblem(claims, alg);
  if (problem) throw new SvcError('Unauthorized', `invalid token: ${problem}`);
  let principal: Principal;
  try {
    principal = principalFromClaims(claims);
  } catch (err) {
    throw new SvcError('Unauthorized', `invalid token: ${(err as Error).message}`);
  }
  if (principal.kind === 'Agent') return registeredAgent(principal, revocation, agents);
  const jti = principal.credential?.jti;
  if (jti && (await revocation.isRevoked(jti))) throw new SvcError('Unauthorized', `token ${jti} has been revoked`);
  return principal;
}

/**
 * jose checks `iat` only against a maximum token age, so a token claiming to be issued tomorrow (by a
 * signer whose clock is wrong, or minted ahead to outlive a key rotation or revocation) passed. Beyond
 * the clock skew allowed, it is refused.
 */
function issuedInTheFuture(claims: SvcClaims, nowSeconds = Date.now() / 1000): string | undefined {
  const iat = (claims as { iat?: unknown }).iat;
  if (typeof iat !== 'number' || iat <= nowSeconds + CLOCK_SKEW_SECONDS) return undefined;
  return `it was issued in the future (iat ${new Date(iat * 1000).toISOString()}, more than ${CLOCK_SKEW_SECONDS} s ahead of this node's clock)`;
}

const ISSUED_AGENT_ID = /^agent-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The registry is the only authority for agent tokens: a token proves which agent calls (its agentId and
 * jti, under the service's signature) and nothing more. It is accepted only while the registry holds the
 * agent with this jti and parent, unrevoked and not past the registry's expiry, and the agent acts with
 * what the registry recorded at issue: its scopes, its parent's groups then, its purpose, and the parent
 * token whose revocation stops it. So a token re-minted with the agent secret (oidc mode signs agent
 * tokens with it) and other `svc_ops`, `svc_groups`, `svc_parent_jti` or a later `exp` gains nothing. The
 * kill switch holds whatever revocation list is configured and across restarts, because the registry is
 * stored with the keys.
 */
async function registeredAgent(
  claimed: Extract<Principal, { kind: 'Agent' }>,
  revocation: RevocationList,
  agents: AgentRegistry,
): Promise<Principal> {
  const subject = claimed.subject;
  const jti = claimed.credential?.jti ?? '';
  // The service names its agents agent-<uuid>: any other subject is not looked up (nor sent to a database).
  const agent = ISSUED_AGENT_ID.test(subject) ? await agents.get(subject) : undefined;
  if (!agent || agent.jti !== jti || agent.parent !== claimed.parent) {
    throw new SvcError(
      'Unauthorized',
      `agent ${subject} is not in the agent registry: only agent tokens this service issued are accepted`,
    );
  }
  if (agent.revokedAt !== undefined)
    throw new SvcError('Unauthorized', `token ${jti} of agent ${subject} was revoked at ${agent.revokedAt}`);
  const expiresAt = Date.parse(agent.expiresAt) / 1000;
  if (expiresAt + CLOCK_SKEW_SECONDS <= Date.now() / 1000)
    throw new SvcError('Unauthorized', `token ${jti} of agent ${subject} expired at ${agent.expiresAt}`);
  if (await revocation.isRevoked(jti))
    throw new SvcError('Unauthorized', `token ${jti} of agent ${subject} has been revoked`);
  // An agent stops with its parent's token (revoking a Human's token cuts off every agent it issued).
  if (agent.parentJti && (await revocation.isRevoked(agent.parentJti)))
    throw new SvcError('Unauthorized', `the token that issued agent ${subject} has been revoked`);
  return {
    kind: 'Agent',
    subject,
    parent: agent.parent,
    parentGroups: [...agent.parentGroups],
    purpose: agent.purpose,
    allowedOperations: agent.scopes.filter(isOperation),
    ...(agent.keys ? { keys: [...agent.keys] } : {}),
    credential: {
      jti,
      issuedAt: Date.parse(agent.issuedAt) / 1000,
      expiresAt,
      ...(agent.parentJti ? { parentJti: agent.parentJti } : {}),
    },
  };
}

/** jose's error codes, as short reasons a client may see. */
export function tokenRejection(err: unknown): SvcError {
  if (err instanceof SvcError) return err;
  const code = (err as { code?: string }).code ?? '';
  const reason: Record<string, string> = {
    ERR_JWT_EXPIRED: 'token has expired',
    ERR_JWT_CLAIM_VALIDATION_FAILED: `token claim check failed (${(err as { claim?: string }).claim ?? 'claim'})`,
    ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'token signature does not verify',
    ERR_JOSE_ALG_NOT_ALLOWED: 'token algorithm is not accepted',
    ERR_JWKS_NO_MATCHING_KEY: 'token is signed by an unknown key',
    ERR_JWS_INVALID: 'token is not a valid JWS',
    ERR_JWT_INVALID: 'token is not a valid JWT',
  };
  return new SvcError('Unauthorized', `invalid token: ${reason[code] ?? 'it could not be verified'}`);
}
