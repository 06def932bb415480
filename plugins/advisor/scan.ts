import type { AgentRecord, AuditRecord, StoredEvent } from '../../kernel/index.ts';
import { anomalyOf, DENIED, riskOf } from './audit-window.ts';

const KEY_USE = new Set(['Sign', 'Verify', 'Encrypt', 'Decrypt', 'Wrap', 'Unwrap']);
const DAY_MS = 86_400_000;

/**
 * What a scan learns from the audit window, a page at a time (so the scan never holds the whole window,
 * nor works through it in one go): each key's last use, each agent's risk and refusals, the findings.
 */
export class WindowTally {
  readonly lastUse = new Map<string, string>();
  readonly perAgent = new Map<
    string,
    { maxRisk: number; riskSum: number; scored: number; denials: number; anomalies: number }
  >();
  readonly anomalies: Array<NonNullable<ReturnType<typeof anomalyOf>>> = [];
  scanned = 0;

  /** Records newest first, continuing the pages added before. */
  add(records: AuditRecord[]): void {
    const agentStats = (id: string) =>
      this.perAgent.get(id) ??
      this.perAgent.set(id, { maxRisk: 0, riskSum: 0, scored: 0, denials: 0, anomalies: 0 }).get(id)!;
    this.scanned += records.length;
    for (const r of records) {
      if (KEY_USE.has(r.operation) && !DENIED.has(r.outcome) && !this.lastUse.has(r.resource))
        this.lastUse.set(r.resource, r.occurredAt); // newest first
      const anomaly = anomalyOf(r);
      if (anomaly) {
        this.anomalies.push(anomaly);
        if (anomaly.actor.startsWith('agent-')) agentStats(anomaly.actor).anomalies++;
        continue;
      }
      if (r.principal.kind !== 'Agent') continue;
      const a = agentStats(r.principal.subject);
      const risk = riskOf(r);
      if (risk !== undefined) {
        a.maxRisk = Math.max(a.maxRisk, risk);
        a.riskSum += risk;
        a.scored++;
      }
      if (DENIED.has(r.outcome)) a.denials++;
    }
  }
}

export interface ScanInput {
  now: Date;
  window: { since: string; until: string };
  tally: WindowTally;
  truncated: boolean;
  keys: Array<{ keyId: string; events: StoredEvent[] }>;
  agents: AgentRecord[];
  unusedDays: number;
  broadScope: number;
  /** How long each list of the report may be. */
  top: number;
}

/**
 * The scan report, from the audit window, the keys and the agent registry. Every list is at most `top`
 * long: the oldest idle keys, the broadest agents, the newest findings and the riskiest agents.
 */
export function scanReport(s: ScanInput) {
  const { lastUse, perAgent, anomalies } = s.tally;
  const idleBefore = new Date(s.now.getTime() - s.unusedDays * DAY_MS).toISOString();
  const unusedKeys = s.keys.flatMap(({ keyId, events }) => {
    const created = events.find((e) => e.event.type === 'KeyCreated')?.event.at;
    if (!created || created > idleBefore || events.some((e) => e.event.type === 'Destroyed')) return [];
    const lastUsedAt = lastUse.get(keyId);
    return lastUsedAt && lastUsedAt > idleBefore ? [] : [{ keyId, createdAt: created, lastUsedAt: lastUsedAt ?? null }];
  });
  const nowIso = s.now.toISOString();
  const broadScopeAgents = s.agents
    .filter((a) => !a.revokedAt && a.expiresAt > nowIso && a.scopes.length >= s.broadScope)
    .sort((x, y) => y.scopes.length - x.scopes.length || x.agentId.localeCompare(y.agentId))
    .map((a) => ({ agentId: a.agentId, parent: a.parent, scopes: a.scopes }));
  const riskiestAgents = [...perAgent]
    .map(([agentId, a]) => ({
      agentId,
      maxRisk: round(a.maxRisk),
      meanRisk: round(a.scored ? a.riskSum / a.scored : 0),
      denials: a.denials,
      anomalies: a.anomalies,
    }))
    .sort(
      (x, y) =>
        y.maxRisk - x.maxRisk ||
        y.anomalies - x.anomalies ||
        y.denials - x.denials ||
        x.agentId.localeCompare(y.agentId),
    )
    .slice(0, s.top);
  return {
    window: s.window,
    scannedRecords: s.tally.scanned,
    truncated: s.truncated,
    unusedKeys: unusedKeys
      .sort((x, y) => x.createdAt.localeCompare(y.createdAt) || x.keyId.localeCompare(y.keyId))
      .slice(0, s.top),
    broadScopeAgents: broadScopeAgents.slice(0, s.top),
    activeAnomalies: anomalies.slice(0, s.top),
    riskiestAgents,
  };
}

const round = (n: number) => Math.round(n * 100) / 100;
