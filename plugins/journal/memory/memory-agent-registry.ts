import type { AgentRecord, AgentRegistry } from '../../../kernel/index.ts';

/** The agent registry of the in-memory journal: lost on restart, like the keys it sits beside. */
export class MemoryAgentRegistry implements AgentRegistry {
  private readonly agents = new Map<string, AgentRecord>();

  async register(agent: AgentRecord): Promise<void> {
    if (this.agents.has(agent.agentId)) throw new Error(`agent ${agent.agentId} is already registered`);
    this.agents.set(agent.agentId, structuredClone(agent));
  }

  async get(agentId: string): Promise<AgentRecord | undefined> {
    const agent = this.agents.get(agentId);
    return agent && structuredClone(agent);
  }

  async findByJti(jti: string): Promise<AgentRecord | undefined> {
    for (const agent of this.agents.values()) if (agent.jti === jti) return structuredClone(agent);
    return undefined;
  }

  async list(filter: { parent?: string; limit: number }): Promise<AgentRecord[]> {
    const all = [...this.agents.values()].filter((a) => filter.parent === undefined || a.parent === filter.parent);
    // Map order is registration order: reversed, a stable sort by time keeps later registrations first.
    return all
      .reverse()
      .sort((a, b) => b.issuedAt.localeCompare(a.issuedAt))
      .slice(0, filter.limit)
      .map((a) => structuredClone(a));
  }

  async markRevokedUnder(parentJti: string, at: string): Promise<string[]> {
    const under = [...this.agents.values()].filter((a) => a.parentJti === parentJti && a.revokedAt === undefined);
    for (const agent of under) agent.revokedAt = at;
    return under.map((a) => a.agentId);
  }

  async markRevoked(agentId: string, at: string): Promise<AgentRecord | undefined> {
    const agent = this.agents.get(agentId);
    if (!agent) return undefined;
    agent.revokedAt ??= at;
    return structuredClone(agent);
  }
}
