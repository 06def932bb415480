/** An agent token the service issued, as the registry keeps it (never the token itself). */
export interface AgentRecord {
  agentId: string;
  jti: string;
  /** The subject of the Human that issued it. */
  parent: string;
  /** The jti of the parent's token at issue time, when it had one. */
  parentJti?: string;
  /**
   * The parent's groups at issue time: role-based policy bounds the agent by them at every use. Agents
   * registered before the registry kept them read as none (only the parent's subject bindings bound them).
   */
  parentGroups: string[];
  purpose: string;
  scopes: string[];
  /** The key patterns it may touch (id:, name:, owner:self, alias:); absent: not limited to keys. */
  keys?: string[];
  issuedAt: string;
  expiresAt: string;
  /** Set once, by the first revocation. */
  revokedAt?: string;
}
