import {
  type AgentRecord,
  type AgentRegistry,
  type AnyOperation,
  type Clock,
  defineOperation,
  namedResource,
  SvcError,
} from '../../kernel/index.ts';
import { AgentList, AgentRef, ListAgentsQuery, RevokeAgentResponse } from '../../schemas/tokens.ts';

const MAX_LIST = 1000;

const view = (a: AgentRecord) => ({
  agentId: a.agentId,
  jti: a.jti,
  parent: a.parent,
  purpose: a.purpose,
  scopes: a.scopes,
  ...(a.keys ? { keys: a.keys } : {}),
  issuedAt: a.issuedAt,
  expiresAt: a.expiresAt,
  revoked: a.revokedAt !== undefined,
  ...(a.revokedAt ? { revokedAt: a.revokedAt } : {}),
});

/**
 * The kill switch: list the agents a Human
 * issued and revoke one. Both decide who may call from what they find, so they ask the policy
 * themselves: a parent always sees and stops its own agents; `Query` on `agent:*` sees every agent and
 * `Revoke` on `agent:<id>` stops any. Revoking marks the registry, which every agent token is checked
 * against at every call, so the agent's next call is 401 whatever revocation list is configured (none
 * included) and after any restart; it is idempotent and keeps the first revocation time.
 */
export function agentOperations(registry: AgentRegistry, clock: Clock): AnyOperation[] {
  return [
    defineOperation({
      id: 'ListAgents',
      operation: 'Query',
      description:
        'List agent tokens, newest first: id, parent, label, scopes, expiry and ' +
        'whether revoked. A caller sees its own agents; one allowed Query on ' +
        'agent:* sees every agent and may filter by parent. Use it to find an ' +
        'agent to inspect or revoke. Changes nothing. Human callers only.',
      group: 'Agents',
      summary: "List agent tokens: the caller's own, or every agent for a caller allowed Query on agent:* (Human only)",
      input: ListAgentsQuery,
      output: AgentList,
      http: { method: 'GET', path: '/v1/agents' },
      attributes: { humanOnly: true, authorizesItself: true, riskGated: false, readOnly: true },
      resource: () => 'agent:*',
      inputFacts: (input): Record<string, string> =>
        input.parent === undefined ? {} : { 'filter.parent': input.parent },
      handle: async (input, call) => {
        const everyone = call.permits('Query', 'agent:*');
        const own = call.principal.subject;
        if (!everyone && input.parent !== undefined && input.parent !== own) {
          throw new SvcError(
            'PermissionDenied',
            `${own} may list only its own agents (listing another parent's needs Query on agent:*)`,
          );
        }
        const parent = everyone ? input.parent : own;
        const limit = Math.min(MAX_LIST, Math.max(1, Number(input.limit ?? MAX_LIST)));
        const agents = await registry.list({ ...(parent === undefined ? {} : { parent }), limit });
        return { result: { agents: agents.map(view) }, audit: { context: { count: String(agents.length) } } };
      },
    }),
    defineOperation({
      id: 'RevokeAgent',
      operation: 'Revoke',
      description:
        "The kill switch: revoke an agent token by its agent id, so the agent's " +
        'very next call is refused (401), on every node and after restarts. Its ' +
        'parent may always revoke it; anyone else needs Revoke on agent:<id>. ' +
        'Cannot be undone; revoking twice keeps the first time. NotFound for an ' +
        'unknown agent. Human callers only.',
      group: 'Agents',
      summary: 'Revoke an agent token: its next call is 401 (its parent, or a Human allowed Revoke on agent:ID)',
      errors: ['NotFound'],
      input: AgentRef,
      output: RevokeAgentResponse,
      http: { method: 'POST', path: '/v1/agents/:agentId/revoke' },
      // Never refused by a rate limit or the risk decision: a rogue agent's flood (which also drains its
      // parent's bucket) or the risk its own misdeeds raise must not keep its parent from stopping it.
      attributes: { humanOnly: true, authorizesItself: true, destructive: true, rateLimited: false, riskGated: false },
      resource: (input) => namedResource('agent:', input?.agentId),
      handle: async (input, call) => {
        const agent = await registry.get(input.agentId);
        if (!agent) throw new SvcError('NotFound', `no agent ${input.agentId} in the registry`);
        if (agent.parent !== call.principal.subject && !call.permits('Revoke', `agent:${agent.agentId}`)) {
          throw new SvcError(
            'PermissionDenied',
            `${call.principal.subject} is neither the parent of ${agent.agentId} nor allowed to Revoke it`,
          );
        }
        const marked = await registry.markRevoked(agent.agentId, clock.now().toISOString());
        const revokedAt = marked?.revokedAt ?? clock.now().toISOString();
        return {
          result: { agentId: agent.agentId, revoked: true as const, revokedAt },
          audit: { context: { parent: agent.parent, jti: agent.jti } },
        };
      },
    }),
  ];
}
