import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import type { AgentRecord, AgentRegistry } from '../../../kernel/index.ts';
import { BatchedLookup } from '../../sql-support/batched-lookup.ts';

interface AgentRow {
  agent_id: string;
  jti: string;
  parent: string;
  parent_jti: string | null;
  parent_groups: string | null;
  purpose: string;
  scopes: string;
  key_patterns: string | null;
  issued_at: string;
  expires_at: string;
  revoked_at: string | null;
}

/** Agents kept in memory at most when this process is the store's only writer. */
const MAX_CACHED_AGENTS = 10_000;

const toRecord = (r: AgentRow): AgentRecord => ({
  agentId: r.agent_id,
  jti: r.jti,
  parent: r.parent,
  ...(r.parent_jti ? { parentJti: r.parent_jti } : {}),
  parentGroups: r.parent_groups ? (JSON.parse(r.parent_groups) as string[]) : [],
  purpose: r.purpose,
  scopes: JSON.parse(r.scopes) as string[],
  ...(r.key_patterns ? { keys: JSON.parse(r.key_patterns) as string[] } : {}),
  issuedAt: r.issued_at,
  expiresAt: r.expires_at,
  ...(r.revoked_at ? { revokedAt: r.revoked_at } : {}),
});

/**
 * The agent registry in the journal's database (table svc_agents). `get` runs for every call an agent
 * token makes, so it is cheap: when this process is the database's only writer (SQLite) a record read
 * once is answered from memory, and markRevoked updates that memory before it returns; when several
 * nodes share the database, every `get` reads the row (by its unique agent_id index, the lookups of one
 * event-loop turn in one query), so a revocation another node committed is seen by the next call here,
 * as key state is.
 */
export class KnexAgentRegistry implements AgentRegistry {
  private readonly cache: LRUCache<string, AgentRecord> | undefined;
  private readonly rows: BatchedLookup<AgentRecord | undefined>;
  /** Revocations committed through this registry so far (see `get`). */
  private revocations = 0;

  constructor(
    private readonly run: <T>(work: (db: Knex) => Promise<T>) => Promise<T>,
    shared: boolean,
  ) {
    this.cache = shared ? undefined : new LRUCache({ max: MAX_CACHED_AGENTS });
    this.rows = new BatchedLookup(async (agentIds) => {
      const rows = await this.run((db) => db<AgentRow>('svc_agents').whereIn('agent_id', agentIds));
      return new Map((rows as AgentRow[]).map((r) => [r.agent_id, toRecord(r)]));
    }, undefined);
  }

  async register(a: AgentRecord): Promise<void> {
    await this.run((db) =>
      db('svc_agents').insert({
        agent_id: a.agentId,
        jti: a.jti,
        parent: a.parent,
        parent_jti: a.parentJti ?? null,
        parent_groups: JSON.stringify(a.parentGroups),
        purpose: a.purpose,
        scopes: JSON.stringify(a.scopes),
        key_patterns: a.keys ? JSON.stringify(a.keys) : null,
        issued_at: a.issuedAt,
        expires_at: a.expiresAt,
        revoked_at: a.revokedAt ?? null,
      }),
    );
    this.cache?.set(a.agentId, structuredClone(a));
  }

  async get(agentId: string): Promise<AgentRecord | undefined> {
    const cached = this.cache?.get(agentId);
    if (cached) return structuredClone(cached);
    // A read sent before a revocation committed may answer after it: such an answer is used once, never cached.
    const epoch = this.revocations;
    const agent = await this.rows.get(agentId);
    if (agent && epoch === this.revocations) this.cache?.set(agentId, structuredClone(agent));
    return agent;
  }

  async findByJti(jti: string): Promise<AgentRecord | undefined> {
    const row = await this.run((db) => db<AgentRow>('svc_agents').where({ jti }).first());
    return row ? toRecord(row as AgentRow) : undefined;
  }

  async list(filter: { parent?: string; limit: number }): Promise<AgentRecord[]> {
    const rows = await this.run((db) => {
      const q = db<AgentRow>('svc_agents')
        .orderBy([
          { column: 'issued_at', order: 'desc' },
          { column: 'n', order: 'desc' },
        ])
        .limit(filter.limit);
      return filter.parent === undefined ? q : q.where({ parent: filter.parent });
    });
    return (rows as AgentRow[]).map(toRecord);
  }

  async markRevokedUnder(parentJti: string, at: string): Promise<string[]> {
    const ids = await this.run(async (db) => {
      const rows = await db<AgentRow>('svc_agents')
        .where({ parent_jti: parentJti })
        .whereNull('revoked_at')
        .select('agent_id');
      await db('svc_agents').where({ parent_jti: parentJti }).whereNull('revoked_at').update({ revoked_at: at });
      return (rows as Array<{ agent_id: string }>).map((r) => r.agent_id);
    });
    this.revocations++;
    // Every cached agent of that parent token is forgotten (the next get reads it back revoked), also one
    // registered between the select and the update, which the update revoked too.
    if (this.cache)
      for (const [id, agent] of [...this.cache.entries()]) if (agent.parentJti === parentJti) this.cache.delete(id);
    return ids;
  }

  async markRevoked(agentId: string, at: string): Promise<AgentRecord | undefined> {
    // Only the first revocation sets the time; later ones leave it as it is.
    await this.run((db) =>
      db('svc_agents').where({ agent_id: agentId }).whereNull('revoked_at').update({ revoked_at: at }),
    );
    this.revocations++;
    const agent = await this.rows.get(agentId);
    if (agent) this.cache?.set(agentId, structuredClone(agent));
    return agent;
  }
}
