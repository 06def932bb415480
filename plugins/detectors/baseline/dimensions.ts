import type { PrincipalKind } from '../../../kernel/model/index.ts';
import type { BaselineDimension } from './baseline-detector.ts';

// Severities by default (DECISIONS "Details"): new scope and new address matter for agents.
const agentsMedium = (kind: PrincipalKind) => (kind === 'Agent' ? 'Medium' : 'Low');

export const scope: BaselineDimension = {
  name: 'ScopeBaseline',
  valueOf: (r) => (r.operation === 'Create' || r.operation === 'Locate' || r.operation === 'Query' ? undefined : r.resource),
  severityFor: agentsMedium,
  describe: (v) => `resource ${v}`,
};

export const opHistogram: BaselineDimension = {
  name: 'OpHistogramBaseline',
  valueOf: (r) => r.operation,
  severityFor: () => 'Low',
  describe: (v) => `operation ${v}`,
};

export const timeOfDay: BaselineDimension = {
  name: 'TimeOfDayBaseline',
  valueOf: (r) => String(new Date(r.occurredAt).getUTCHours()),
  severityFor: () => 'Low',
  describe: (v) => `UTC hour ${v}`,
};

export const sourceIp: BaselineDimension = {
  name: 'SourceIpBaseline',
  valueOf: (r) => r.context['source.ip'] || undefined,
  severityFor: agentsMedium,
  describe: (v) => `source address ${v}`,
};
