import { Type } from '@sinclair/typebox';

export const IssueAgentBody = Type.Object({
  label: Type.String({ description: 'What the agent is for (non-empty); becomes its purpose claim', maxLength: 256 }),
  scopes: Type.Array(Type.String(), { description: 'Operation names the agent may perform (never more than the caller may)', maxItems: 17 }),
  ttlSeconds: Type.Integer({ description: '1..86400' }),
  parent: Type.Optional(Type.String({ description: 'must equal the caller when given' })),
}, { additionalProperties: false, title: 'IssueAgentRequest' });

export const IssueAgentResponse = Type.Object({
  agentId: Type.String({ description: 'agent-<uuid>' }),
  jwt: Type.String({ description: 'HS256 bearer token; shown once, never audited' }),
  jti: Type.String({ format: 'uuid' }),
  expiresAt: Type.String({ description: 'ISO 8601 UTC' }),
}, { title: 'IssueAgentResponse' });

export const RevokeTokenBody = Type.Object({
  jti: Type.String({ description: 'the token id to refuse from now on' }),
  expiresAt: Type.Optional(Type.String({ description: 'ISO 8601; when the token expires anyway (lets the list forget it)' })),
}, { additionalProperties: false, title: 'RevokeTokenRequest' });

export const RevokeTokenResponse = Type.Object({ jti: Type.String(), revoked: Type.Literal(true) }, { title: 'RevokeTokenResponse' });
