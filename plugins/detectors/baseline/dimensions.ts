import type { PrincipalKind } from '../../../kernel/index.ts';
import type { BaselineDimension } from './baseline-detector.ts';

// Severities by default: new scope and new address matter for agents.
const agentsMedium = (kind: PrincipalKind) => (kind === 'Agent' ? 'Medium' : 'Low');

export const scope: BaselineDimension = {
  name: 'ScopeBaseline',
  valueOf: (r) =>
    r.operation === 'Create' || r.operation === 'Locate' || r.operation === 'Query' ? undefined : r.resource,
  severityFor: agentsMedium,
  describe: (v) => `resource ${v}`,
  // Five keys never touched before within a minute: probing, not work (a new key now and then stays Medium).
  burst: { count: 5, windowMs: 60_000 },
};

export const opHistogram: BaselineDimension = {
  name: 'OpHistogramBaseline',
  valueOf: (r) => r.operation,
  severityFor: () => 'Low',
  describe: (v) => `operation ${v}`,
};

/** The hour of an ISO 8601 UTC timestamp; read from the text when it has toISOString's shape (cheaper than a Date). */
function utcHour(iso: string): number {
  return iso.length === 24 && iso[10] === 'T' && iso[23] === 'Z'
    ? Number(iso.slice(11, 13))
    : new Date(iso).getUTCHours();
}

export const timeOfDay: BaselineDimension = {
  name: 'TimeOfDayBaseline',
  valueOf: (r) => String(utcHour(r.occurredAt)),
  severityFor: () => 'Low',
  describe: (v) => `UTC hour ${v}`,
};

export const sourceIp: BaselineDimension = {
  name: 'SourceIpBaseline',
  valueOf: (r) => r.context['source.ip'] || undefined,
  severityFor: agentsMedium,
  describe: (v) => `source address ${v}`,
};
