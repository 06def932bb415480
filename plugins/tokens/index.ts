import { isUsableHmacSecret } from '../../kernel/auth/bearer.ts';
import { definePlugin, KERNEL_API_VERSION } from '../../kernel/define-plugin.ts';
import { SvcError } from '../../kernel/errors.ts';
import { guarded, routesPort, type RouteContribution } from '../../kernel/http/route.ts';
import { policyPort } from '../../kernel/ports/policy.ts';
import { revocationPort } from '../../kernel/ports/revocation.ts';
import { IssueAgentBody, IssueAgentResponse, RevokeTokenBody, RevokeTokenResponse } from '../../schemas/tokens.ts';
import { AgentIssuer } from './agent-issuer.ts';

export default definePlugin({
  id: 'tokens',
  apiVersion: KERNEL_API_VERSION,
  provides: routesPort,
  description: 'agent token issuance and manual token revocation (/v1/agents, /v1/tokens)',
  dependsOn: { policy: policyPort, revocation: revocationPort },
  configSlice: (all: Record<string, any>) => ({ secret: all.auth.hmacSecret as string }),
  create: ({ config, deps, clock }): RouteContribution => {
    const issuer = isUsableHmacSecret(config.secret) ? new AgentIssuer(config.secret, deps.policy, clock) : undefined;
    return {
      routes: [
        guarded({
          method: 'POST', path: '/v1/agents/issue', tag: 'Agents', summary: 'Issue a short-lived, scoped agent token (Human only)', operation: 'Create', humanOnly: true,
          body: IssueAgentBody, response: IssueAgentResponse, errors: ['FeatureNotSupported'],
          resource: () => 'agent:new',
          handler: async (req) => {
            if (!issuer) throw new SvcError('FeatureNotSupported', 'agent tokens need SVC_AUTH_HMAC_SECRET (at least 32 bytes) to sign them');
            const issued = await issuer.issue(req.principal, req.body);
            req.audit.resource = `agent:${issued.agentId}`;
            // The JWT itself is never audited: only what identifies and bounds it.
            Object.assign(req.audit.context, { agentId: issued.agentId, jti: issued.jti, ttlSeconds: String(req.body.ttlSeconds), scopes: issued.scopes.join(','), purpose: req.body.label });
            return { body: { agentId: issued.agentId, jwt: issued.jwt, jti: issued.jti, expiresAt: issued.expiresAt } };
          },
        }),
        guarded({
          method: 'POST', path: '/v1/tokens/revoke', tag: 'Agents', summary: 'Refuse a token by its jti from now on (Human only)', operation: 'Revoke', humanOnly: true,
          body: RevokeTokenBody, response: RevokeTokenResponse, errors: ['FeatureNotSupported'],
          resource: (req) => `token:${(req.body as { jti?: string })?.jti ?? ''}`,
          handler: async (req) => {
            if (req.body.jti.trim() === '') throw new SvcError('InvalidField', 'jti must not be blank');
            let expiresAt: number | undefined;
            if (req.body.expiresAt !== undefined) {
              const t = Date.parse(req.body.expiresAt);
              if (Number.isNaN(t)) throw new SvcError('InvalidField', 'expiresAt must be an ISO 8601 timestamp');
              expiresAt = Math.ceil(t / 1000);
            }
            await deps.revocation.revoke(req.body.jti, expiresAt);
            return { body: { jti: req.body.jti, revoked: true as const } };
          },
        }),
      ],
    };
  },
});
