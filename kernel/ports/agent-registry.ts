import type { AgentRecord } from '../model/agent.ts';

/**
 * The agents the service issued (the kill switch's list), stored with the journal so it lives as long
 * as the key state does. Contract (contracts/agent-registry.ts runs it on every journal backend):
 * - `register` stores a new agent; its agentId is new (issuers make it a fresh UUID).
 * - `list` answers agents newest first (issuedAt, then the later registration first), at most `limit`,
 *   those of one parent when `parent` is given.
 * - `markRevoked` sets revokedAt once and answers the stored agent (the first revokedAt stays), or
 *   undefined for an unknown agentId.
 * - `get` is the authority every agent token is checked against at every call, so it must be cheap and
 *   current: a markRevoked through this registry is seen by every `get` that starts after it returned,
 *   and on storage several nodes share, one committed on another node is seen by the next `get` here
 *   (it may answer from memory only where this process is the storage's only writer).
 */
export interface AgentRegistry {
  register(agent: AgentRecord): Promise<void>;
  get(agentId: string): Promise<AgentRecord | undefined>;
  /** The agent whose token has this jti (indexed; for revoking a token by its jti), or undefined. */
  findByJti(jti: string): Promise<AgentRecord | undefined>;
  list(filter: { parent?: string; limit: number }): Promise<AgentRecord[]>;
  markRevoked(agentId: string, at: string): Promise<AgentRecord | undefined>;
  /** Marks every unrevoked agent issued under the token `parentJti` revoked at `at`; answers their agentIds. */
  markRevokedUnder(parentJti: string, at: string): Promise<string[]>;
}
