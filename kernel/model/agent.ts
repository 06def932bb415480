/** An agent token the service issued, as the registry keeps it (never the token itself). */
export interface AgentRecord {
  agentId: string;
  jti: string;
  /** The subject of the Human that issued it. */
  parent: string;
  /** The jti of the parent's token at issue time, when it had one. */
  parentJti?: string;
  purpose: string;
  scopes: string[];
  issuedAt: string;
  expiresAt: string;
  /** Set once, by the first revocation. */
  revokedAt?: string;
}
