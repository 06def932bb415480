import { Type } from '@sinclair/typebox';
import { OPERATIONS } from '../kernel/model/operation.ts';
import { CallerText } from './caller-text.ts';

export const IssueAgentBody = Type.Object(
  {
    label: CallerText({ description: 'What the agent is for (non-empty); becomes its purpose', maxLength: 256 }),
    scopes: Type.Array(Type.String(), {
      description: 'Operation names the agent may perform (never more than the caller may)',
      maxItems: OPERATIONS.length,
    }),
    keys: Type.Optional(
      Type.Array(Type.String({ maxLength: 300 }), {
        maxItems: 50,
        description:
          'key patterns the agent is limited to (id:UUID, name:GLOB, owner:self, alias:NAME), on top of its ' +
          "scopes and its parent's rights; absent: any key those allow",
      }),
    ),
    ttlSeconds: Type.Integer({ description: '1..86400' }),
    parent: Type.Optional(Type.String({ description: 'must equal the caller when given' })),
  },
  { additionalProperties: false, title: 'IssueAgentRequest' },
);

export const IssueAgentResponse = Type.Object(
  {
    agentId: Type.String({ description: 'agent-<uuid>' }),
    jwt: Type.String({ description: 'HS256 bearer token; shown once, never audited' }),
    jti: Type.String({ format: 'uuid' }),
    expiresAt: Type.String({ description: 'ISO 8601 UTC' }),
  },
  { title: 'IssueAgentResponse' },
);

export const RevokeTokenBody = Type.Object(
  {
    jti: Type.String({ description: 'the token id to refuse from now on' }),
    expiresAt: Type.Optional(
      Type.String({ description: 'ISO 8601; when the token expires anyway (lets the list forget it)' }),
    ),
  },
  { additionalProperties: false, title: 'RevokeTokenRequest' },
);

export const RevokeTokenResponse = Type.Object(
  { jti: Type.String(), revoked: Type.Literal(true) },
  { title: 'RevokeTokenResponse' },
);

export const AgentView = Type.Object(
  {
    agentId: Type.String({ description: 'agent-<uuid>' }),
    jti: Type.String({ description: 'the id of the agent token (never the token itself)' }),
    parent: Type.String({ description: 'the Human that issued it' }),
    purpose: Type.String(),
    scopes: Type.Array(Type.String(), { description: 'Operation names the token carries' }),
    keys: Type.Optional(Type.Array(Type.String(), { description: 'the key patterns it is limited to' })),
    issuedAt: Type.String({ description: 'ISO 8601 UTC' }),
    expiresAt: Type.String({ description: 'ISO 8601 UTC' }),
    revoked: Type.Boolean(),
    revokedAt: Type.Optional(Type.String({ description: 'ISO 8601 UTC, when revoked' })),
  },
  { title: 'Agent' },
);

export const ListAgentsQuery = Type.Object(
  {
    parent: Type.Optional(
      Type.String({
        description: 'only the agents of this parent (callers without Query on agent:* may name only themselves)',
        maxLength: 512,
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 9999,
        description: 'at most this many, newest first (clamped to 1..1000, default 1000)',
      }),
    ),
  },
  { additionalProperties: false, title: 'ListAgentsQuery' },
);

export const AgentList = Type.Object({ agents: Type.Array(AgentView) }, { title: 'AgentList' });

export const AgentRef = Type.Object(
  { agentId: Type.String({ maxLength: 64 }) },
  { additionalProperties: false, title: 'AgentRef' },
);

export const RevokeAgentResponse = Type.Object(
  {
    agentId: Type.String(),
    revoked: Type.Literal(true),
    revokedAt: Type.String({ description: 'ISO 8601 UTC of the first revocation' }),
  },
  { title: 'RevokeAgentResponse' },
);
