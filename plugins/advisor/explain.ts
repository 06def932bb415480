import type { AgentRecord, AuditRecord } from '../../kernel/index.ts';
import { anomalyOf, DENIED, riskOf } from './audit-window.ts';

export interface TimelineEvent {
  occurredAt: string;
  operation: string;
  resource: string;
  outcome: string;
  riskScore?: number;
  decision?: string;
  /** The prompt and model the call said it acted for (X-Svc-Prompt-Id / X-Svc-Model, or an MCP call's `_meta`). */
  promptId?: string;
  model?: string;
}

/** The timeline's calls of one prompt (promptId null: the calls that named none), in order of first call. */
export interface PromptGroup {
  promptId: string | null;
  models: string[];
  events: number;
  refused: number;
  first: string;
  last: string;
}

export interface Timeline {
  agentId: string;
  window: { since: string; until: string };
  events: TimelineEvent[];
  prompts: PromptGroup[];
  anomalies: Array<NonNullable<ReturnType<typeof anomalyOf>>>;
  summary: string;
}

/** Slack for the clocks of different nodes: an agent issued on one node may be watched by another's detectors. */
const CLOCK_SLACK_MS = 5 * 60_000;

/**
 * From when the service's own records (actor svc-system) can hold findings about the agent. A finding
 * follows one of the agent's calls, on the node that served it, so none predates the agent's issue, and
 * when `own` holds all of the agent's calls in the window (some, and fewer than `maxEvents`), none predates
 * the first of them: except one written just after the window's start about a call just before it,
 * which this may leave out. Five minutes of slack cover the clocks of different nodes (an agent issued on
 * one may call another). Reading from there instead of the window's start spares an explanation thousands
 * of rows on a busy trail (each row read was parsed to find the few about this agent).
 */
export function findingsSince(
  windowSince: string,
  own: AuditRecord[],
  maxEvents: number,
  agent: AgentRecord | undefined,
): string {
  const bounds = [Date.parse(windowSince)];
  if (agent) bounds.push(Date.parse(agent.issuedAt) - CLOCK_SLACK_MS);
  if (own.length > 0 && own.length < maxEvents) bounds.push(Date.parse(own.at(-1)!.occurredAt) - CLOCK_SLACK_MS);
  return new Date(Math.max(...bounds.filter(Number.isFinite))).toISOString();
}

/**
 * One agent's timeline, oldest first: its own calls (the newest `maxEvents` of the window) with their
 * risk stamps, and the findings about it. Only these fields leave the audit rows; context values other
 * than the risk score, decision, prompt id and model stay behind (they may hold what a narrator must not
 * see). Events are also grouped by the prompt they named, so an operator sees which prompt did what.
 */
export function timelineOf(
  agentId: string,
  window: { since: string; until: string },
  own: AuditRecord[],
  system: AuditRecord[],
  agent: AgentRecord | undefined,
  maxEvents: number,
): Timeline {
  const events: TimelineEvent[] = own
    .slice(0, maxEvents)
    .reverse()
    .map((r) => {
      const e: TimelineEvent = {
        occurredAt: r.occurredAt,
        operation: r.operation,
        resource: r.resource,
        outcome: r.outcome,
      };
      const risk = riskOf(r);
      if (risk !== undefined) e.riskScore = risk;
      if (r.context['outcome.decision']) e.decision = r.context['outcome.decision'];
      if (r.context['agent.promptId']) e.promptId = r.context['agent.promptId'];
      if (r.context['agent.model']) e.model = r.context['agent.model'];
      return e;
    });
  const anomalies = system
    .map(anomalyOf)
    .filter((a): a is NonNullable<typeof a> => a !== undefined && a.actor === agentId)
    .reverse();
  const prompts = promptGroups(events);
  return {
    agentId,
    window,
    events,
    prompts,
    anomalies,
    summary: summarize(agentId, events, prompts, anomalies, agent),
  };
}

/** The events grouped by the prompt they named, each group once, in the order of its first call. */
export function promptGroups(events: TimelineEvent[]): PromptGroup[] {
  const groups = new Map<string | null, PromptGroup>();
  for (const e of events) {
    const id = e.promptId ?? null;
    let g = groups.get(id);
    if (!g)
      groups.set(
        id,
        (g = { promptId: id, models: [], events: 0, refused: 0, first: e.occurredAt, last: e.occurredAt }),
      );
    g.events++;
    if (DENIED.has(e.outcome)) g.refused++;
    if (e.model !== undefined && !g.models.includes(e.model)) g.models.push(e.model);
    g.last = e.occurredAt;
  }
  return [...groups.values()];
}

/** A plain account of the timeline, the same every time: what the narration falls back to. */
function summarize(
  agentId: string,
  events: TimelineEvent[],
  prompts: PromptGroup[],
  anomalies: Timeline['anomalies'],
  agent: AgentRecord | undefined,
): string {
  // The parent and the label are caller-chosen text, quoted as data (JSON strings): a label holding a
  // quote and newlines must not be able to write sentences of this summary.
  const who = agent
    ? `${agentId} (issued by ${JSON.stringify(agent.parent)} for ${JSON.stringify(agent.purpose)}, scopes ${agent.scopes.join(', ') || 'none'}${agent.revokedAt ? `, revoked ${agent.revokedAt}` : ''})`
    : agentId;
  if (events.length === 0 && anomalies.length === 0) return `${who} made no calls in the window.`;
  const byOp = new Map<string, number>();
  for (const e of events) byOp.set(e.operation, (byOp.get(e.operation) ?? 0) + 1);
  const ops = [...byOp]
    .sort((a, b) => b[1] - a[1])
    .map(([op, n]) => `${n} ${op}`)
    .join(', ');
  const keys = new Set(events.map((e) => e.resource)).size;
  const refused = events.filter((e) => DENIED.has(e.outcome));
  const scores = events.flatMap((e) => (e.riskScore === undefined ? [] : [e.riskScore]));
  const parts = [`${who} made ${events.length} call(s) (${ops}) on ${keys} resource(s)`];
  if (events.length) parts.push(`from ${events[0]!.occurredAt} to ${events.at(-1)!.occurredAt}`);
  const named = prompts.filter((p) => p.promptId !== null).length;
  if (named) parts.push(`for ${named} named prompt(s)${named < prompts.length ? ' and calls naming none' : ''}`);
  if (refused.length)
    parts.push(`${refused.length} refused (${[...new Set(refused.map((e) => e.outcome))].join(', ')})`);
  if (scores.length) parts.push(`highest risk score ${Math.max(...scores)}`);
  if (anomalies.length)
    parts.push(
      `${anomalies.length} anomaly finding(s): ${[...new Set(anomalies.map((a) => `${a.detector} ${a.severity}`))].join(', ')}`,
    );
  return `${parts.join('; ')}.`;
}
