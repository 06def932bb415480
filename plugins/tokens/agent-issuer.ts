import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import {
  type AgentRegistry,
  agentKeyPatternProblem,
  type Clock,
  MAX_AGENT_KEY_PATTERNS,
  isOperation,
  MAX_AGENT_TTL_SECONDS,
  type Operation,
  type Policy,
  type Principal,
  SVC_TOKEN_AUDIENCE,
  SVC_TOKEN_ISSUER,
  SvcError,
} from '../../kernel/index.ts';

/** The registry keeps parents up to this length (an indexed column). */
const MAX_PARENT_LENGTH = 512;

export interface IssueRequest {
  label: string;
  scopes: string[];
  /** Key patterns (id:, name:, owner:self, alias:): the agent may touch only matching keys. */
  keys?: string[];
  ttlSeconds: number;
  parent?: string;
}

/**
 * Issues agent tokens: HS256, signed with SVC_AUTH_HMAC_SECRET, scoped to
 * operations the caller may perform itself, carrying the caller's groups so that role-based policy can
 * keep bounding the agent by its parent at every use, expiring no later than the caller's own token, and
 * registered before the token leaves (the registry is what authenticates it at every use).
 */
export class AgentIssuer {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly policy: Policy,
    private readonly registry: AgentRegistry,
    private readonly clock: Clock,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(caller: Principal, req: IssueRequest) {
    if (caller.kind !== 'Human') throw new SvcError('PermissionDenied', 'only Human principals may issue agent tokens');
    if (req.label.trim() === '') throw new SvcError('InvalidField', 'label must not be blank');
    const unknown = req.scopes.filter((s) => !isOperation(s));
    if (unknown.length)
      throw new SvcError('InvalidField', `scopes must be Operation names; unknown: ${unknown.join(', ')}`);
    if (req.ttlSeconds <= 0 || req.ttlSeconds > MAX_AGENT_TTL_SECONDS)
      throw new SvcError('InvalidField', `ttlSeconds must be between 1 and ${MAX_AGENT_TTL_SECONDS}`);
    if (caller.subject.length > MAX_PARENT_LENGTH)
      throw new SvcError(
        'InvalidField',
        `a parent subject longer than ${MAX_PARENT_LENGTH} characters cannot issue agent tokens`,
      );
    if (req.parent !== undefined && req.parent !== caller.subject)
      throw new SvcError(
        'InvalidField',
        'parent must be the caller itself; tokens cannot be issued for another principal',
      );
    const keys = req.keys === undefined ? undefined : [...new Set(req.keys)];
    if (keys !== undefined) {
      if (keys.length === 0 || keys.length > MAX_AGENT_KEY_PATTERNS)
        throw new SvcError(
          'InvalidField',
          `keys must hold 1..${MAX_AGENT_KEY_PATTERNS} key patterns (omit it for no limit)`,
        );
      const problems = keys.map(agentKeyPatternProblem).filter((p) => p !== undefined);
      if (problems.length) throw new SvcError('InvalidField', `keys: ${problems.join('; ')}`);
    }
    const scopes = [...new Set(req.scopes)] as Operation[];
    const beyond = scopes.filter((op) => !this.policy.authorize(caller, op, 'agent:new').allowed);
    if (beyond.length)
      throw new SvcError('PermissionDenied', `an agent cannot get scopes its parent lacks: ${beyond.join(', ')}`);

    const agentId = `agent-${randomUUID()}`;
    const parentJti = caller.credential?.jti;
    const jti = randomUUID();
    const now = Math.floor(this.clock.now().getTime() / 1000);
    // An agent never outlives the credential it was issued under: when that expires, so does the agent.
    const parentExp = caller.credential?.expiresAt;
    const exp = parentExp === undefined ? now + req.ttlSeconds : Math.min(now + req.ttlSeconds, parentExp);
    if (exp <= now)
      throw new SvcError(
        'InvalidField',
        'the token this call was made with has expired (within the allowed clock skew): renew it to issue an agent',
      );
    const jwt = await new SignJWT({
      svc_kind: 'agent',
      svc_parent: caller.subject,
      svc_purpose: req.label,
      svc_ops: scopes,
      svc_groups: caller.groups,
      ...(parentJti ? { svc_parent_jti: parentJti } : {}),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(SVC_TOKEN_ISSUER)
      .setAudience(SVC_TOKEN_AUDIENCE)
      .setSubject(agentId)
      .setJti(jti)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .sign(this.key);
    const expiresAt = new Date(exp * 1000).toISOString();
    // Registered before the token leaves: no agent exists that the kill switch cannot find.
    await this.registry.register({
      agentId,
      jti,
      parent: caller.subject,
      ...(parentJti ? { parentJti } : {}),
      parentGroups: [...caller.groups],
      purpose: req.label,
      scopes,
      ...(keys ? { keys } : {}),
      issuedAt: this.clock.now().toISOString(),
      expiresAt,
    });
    return { agentId, jwt, jti, expiresAt, scopes, ...(keys ? { keys } : {}) };
  }
}
