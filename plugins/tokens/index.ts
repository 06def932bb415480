import {
  defineOperation,
  definePlugin,
  isUsableHmacSecret,
  journalPort,
  KERNEL_API_VERSION,
  MAX_JTI_LENGTH,
  namedResource,
  type OperationContribution,
  operationsPort,
  parseTimestamp,
  policyPort,
  revocationPort,
  SvcError,
} from '../../kernel/index.ts';
import { IssueAgentBody, IssueAgentResponse, RevokeTokenBody, RevokeTokenResponse } from '../../schemas/tokens.ts';
import { AgentIssuer } from './agent-issuer.ts';
import { agentOperations } from './agent-operations.ts';

export default definePlugin({
  id: 'tokens',
  apiVersion: KERNEL_API_VERSION,
  provides: operationsPort,
  description:
    'agent tokens: issuance, the agent registry and its kill switch, manual token revocation (/v1/agents, /v1/tokens)',
  dependsOn: { policy: policyPort, revocation: revocationPort, journal: journalPort },
  configure: (_settings, deployment) => ({ secret: deployment.hmacSecret }),
  create: ({ config, deps, clock }): OperationContribution => {
    const issuer = isUsableHmacSecret(config.secret)
      ? new AgentIssuer(config.secret, deps.policy, deps.journal.agents, clock)
      : undefined;
    return {
      groups: { Agents: "Issue, list and revoke AI agents' scoped short-lived tokens; revoke any token." },
      operations: [
        defineOperation({
          id: 'IssueAgentToken',
          operation: 'Create',
          description:
            'Issue a short-lived agent token scoped to some operations (never more ' +
            'than its issuer may do) for an AI agent acting for the caller; returns ' +
            'the token once, with its agent id, jti and expiry. Human callers only; ' +
            'FeatureNotSupported without an HMAC signing secret.',
          group: 'Agents',
          summary: 'Issue a short-lived, scoped agent token (Human only)',
          errors: ['FeatureNotSupported'],
          input: IssueAgentBody,
          output: IssueAgentResponse,
          http: { method: 'POST', path: '/v1/agents/issue' },
          attributes: { humanOnly: true, toolName: false },
          resource: () => 'agent:new',
          handle: async (input, call) => {
            if (!issuer)
              throw new SvcError(
                'FeatureNotSupported',
                'agent tokens need SVC_AUTH_HMAC_SECRET (at least 32 bytes) to sign them',
              );
            const issued = await issuer.issue(call.principal, input);
            // The JWT itself is never audited: only what identifies and bounds it.
            const context = {
              agentId: issued.agentId,
              jti: issued.jti,
              ttlSeconds: String(input.ttlSeconds),
              scopes: issued.scopes.join(','),
              ...(issued.keys ? { keys: issued.keys.join(',') } : {}),
              purpose: input.label,
            };
            return {
              result: { agentId: issued.agentId, jwt: issued.jwt, jti: issued.jti, expiresAt: issued.expiresAt },
              audit: { resource: `agent:${issued.agentId}`, context },
            };
          },
        }),
        defineOperation({
          id: 'RevokeToken',
          operation: 'Revoke',
          description:
            "Refuse a token by its jti from now on: an agent's token is stopped in " +
            'the agent registry (its parent, or a caller allowed Revoke on ' +
            'agent:<id>), any other token goes on the revocation list and the ' +
            'agents issued under it stop too. Cannot be undone. Human callers only; ' +
            "FeatureNotSupported for a token that is no agent's when no revocation " +
            'list is configured.',
          group: 'Agents',
          summary: 'Refuse a token by its jti from now on (Human only)',
          errors: ['FeatureNotSupported'],
          input: RevokeTokenBody,
          output: RevokeTokenResponse,
          http: { method: 'POST', path: '/v1/tokens/revoke' },
          // Like the kill switch: never refused by a rate limit or the risk decision.
          attributes: { humanOnly: true, destructive: true, toolName: false, rateLimited: false, riskGated: false },
          resource: (input) => namedResource('token:', input?.jti),
          handle: async (input, call) => {
            if (input.jti.trim() === '') throw new SvcError('InvalidField', 'jti must not be blank');
            if (input.jti.length > MAX_JTI_LENGTH)
              throw new SvcError('InvalidField', `jti must be at most ${MAX_JTI_LENGTH} characters`);
            let expiresAt: number | undefined;
            if (input.expiresAt !== undefined) {
              const t = parseTimestamp(input.expiresAt);
              if (t === undefined)
                throw new SvcError(
                  'InvalidField',
                  'expiresAt must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z',
                );
              expiresAt = Math.ceil(t / 1000);
            }
            // An agent's token is stopped in the agent registry, durably and whatever the list's kind, and only
            // by whoever may stop that agent through the kill switch (its parent, or Revoke on agent:<id>).
            const agent = await deps.journal.agents.findByJti(input.jti);
            if (agent) {
              if (agent.parent !== call.principal.subject && !call.permits('Revoke', `agent:${agent.agentId}`)) {
                throw new SvcError(
                  'PermissionDenied',
                  `${call.principal.subject} is neither the parent of the agent this token belongs to nor allowed to Revoke it`,
                );
              }
              await deps.journal.agents.markRevoked(agent.agentId, clock.now().toISOString());
              const context: Record<string, string> = { agentId: agent.agentId };
              return { result: { jti: input.jti, revoked: true as const }, audit: { context } };
            }
            await deps.revocation.revoke(input.jti, expiresAt);
            // The agents issued under this token stop with it, durably: the list may be lost at a restart.
            const agents = await deps.journal.agents.markRevokedUnder(input.jti, clock.now().toISOString());
            const context: Record<string, string> = { agentsRevoked: String(agents.length) };
            return { result: { jti: input.jti, revoked: true as const }, audit: { context } };
          },
        }),
        ...agentOperations(deps.journal.agents, clock),
      ],
    };
  },
});
