import { Type } from '@sinclair/typebox';

const Count = (description: string) => Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$', description }));

/** GET /v1/advisor/scan query (SPEC 4 "Advisor"). */
export const AdvisorScanQuery = Type.Object({
  lookbackDays: Count('days of audit to read; default 90'),
  unusedDays: Count('a key unused this many days is idle; default 30'),
  broadScope: Count('an agent with this many operations or more is broad; default 5'),
  top: Count('how many riskiest agents to list; default 5'),
});

/** GET /v1/advisor/explain/{agentId} query. */
export const AdvisorExplainQuery = Type.Object({
  lookbackDays: Count('days of audit to read'),
  maxEvents: Count('at most this many events in the timeline'),
});

/** SPEC fixes only `truncated` of the scan report; the other fields belong to the advisor that answers. */
export const AdvisorScanReport = Type.Object({ truncated: Type.Boolean() }, { additionalProperties: true, title: 'AdvisorScanReport' });

/** SPEC does not fix the explain report's fields; it is a JSON object. */
export const AdvisorExplanation = Type.Object({}, { additionalProperties: true, title: 'AdvisorExplanation' });
