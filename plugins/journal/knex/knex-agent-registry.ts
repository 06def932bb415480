import type { Knex } from 'knex';
import type { AgentRecord } from '../../../kernel/model/index.ts';
import type { AgentRegistry } from '../../../kernel/ports/agent-registry.ts';

interface AgentRow {
  agent_id: string;
  jti: string;
  parent: string;
  parent_jti: string | null;
  purpose: string;
  scopes: string;
  issued_at: string;
  expires_at: string;
  revoked_at: string | null;
}

const toRecord = (r: AgentRow): AgentRecord => ({
  agentId: r.agent_id, jti: r.jti, parent: r.parent, ...(r.parent_jti ? { parentJti: r.parent_jti } : {}), purpose: r.purpose,
  scopes: JSON.parse(r.scopes) as string[], issuedAt: r.issued_at, expiresAt: r.expires_at, ...(r.revoked_at ? { revokedAt: r.revoked_at } : {}),
});

/** The agent registry in the journal's database (table svc_agents). */
export class KnexAgentRegistry implements AgentRegistry {
  constructor(private readonly run: <T>(work: (db: Knex) => Promise<T>) => Promise<T>) {}

  async register(a: AgentRecord): Promise<void> {
    await this.run((db) => db('svc_agents').insert({
      agent_id: a.agentId, jti: a.jti, parent: a.parent, parent_jti: a.parentJti ?? null, purpose: a.purpose,
      scopes: JSON.stringify(a.scopes), issued_at: a.issuedAt, expires_at: a.expiresAt, revoked_at: a.revokedAt ?? null,
    }));
  }

  async get(agentId: string): Promise<AgentRecord | undefined> {
    const row = await this.run((db) => db<AgentRow>('svc_agents').where({ agent_id: agentId }).first());
    return row ? toRecord(row) : undefined;
  }

  async list(filter: { parent?: string; limit: number }): Promise<AgentRecord[]> {
    const rows = await this.run((db) => {
      const q = db<AgentRow>('svc_agents').orderBy([{ column: 'issued_at', order: 'desc' }, { column: 'n', order: 'desc' }]).limit(filter.limit);
      return filter.parent === undefined ? q : q.where({ parent: filter.parent });
    });
    return (rows as AgentRow[]).map(toRecord);
  }

  async markRevoked(agentId: string, at: string): Promise<AgentRecord | undefined> {
    // Only the first revocation sets the time; later ones leave it as it is.
    await this.run((db) => db('svc_agents').where({ agent_id: agentId }).whereNull('revoked_at').update({ revoked_at: at }));
    return this.get(agentId);
  }
}
