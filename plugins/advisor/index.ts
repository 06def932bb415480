import { Type } from '@sinclair/typebox';
import {
  type AuditSink,
  auditSinkPort,
  defineOperation,
  definePlugin,
  journalPort,
  KERNEL_API_VERSION,
  namedResource,
  oneAtATime,
  OneAtATime,
  type OperationContribution,
  operationsPort,
  SvcError,
} from '../../kernel/index.ts';
import { AdvisorExplainQuery, AdvisorExplanation, AdvisorScanQuery, AdvisorScanReport } from '../../schemas/advisor.ts';
import { eachWindowPage, readWindow, ROW_CAP } from './audit-window.ts';
import { advisorSettings } from './config.ts';
import { findingsSince, timelineOf } from './explain.ts';
import { keysWithEvents } from './journal-keys.ts';
import { narrate, type NarratorSettings } from './narrator.ts';
import { scanReport, WindowTally } from './scan.ts';

const DAY_MS = 86_400_000;
// Parameters arrive within their ranges (the input schemas refuse others with InvalidField); absent ones
// take the defaults below.

// One explanation's reads at a time per node (per primary sink), like a scan's: each reads up to 5,000
// auto-responder rows besides the agent's own; a second caller meanwhile is 429 with Retry-After.
const explanations = new WeakMap<AuditSink, OneAtATime>();
const explanationGate = (sink: AuditSink): OneAtATime => {
  let gate = explanations.get(sink);
  if (!gate) explanations.set(sink, (gate = new OneAtATime('an advisor explanation')));
  return gate;
};

function queryable(sink: AuditSink): void {
  if (!sink.query)
    throw new SvcError(
      'FeatureNotSupported',
      'the advisor reads the audit trail, and the primary audit sink ' +
        '(audit.kind stdout) cannot be queried; use rdb-embedded or a database sink',
    );
}

export default definePlugin({
  id: 'advisor',
  apiVersion: KERNEL_API_VERSION,
  provides: operationsPort,
  description: 'read-only advice from the audit trail: scan, and one agent explained (optionally narrated)',
  dependsOn: { sink: auditSinkPort, journal: journalPort },
  settings: advisorSettings,
  // advisor.llm.baseUrl is checked by the loader (format outbound-url), whatever the provider.
  configure: ({ advisor: { llm } }): NarratorSettings => {
    if ((llm.provider === 'openai' || llm.provider === 'anthropic') && !llm.apiKey)
      throw new Error(`advisor.llm.apiKey (env SVC_ADVISOR_LLM_API_KEY) is required for provider ${llm.provider}`);
    return { ...llm };
  },
  create: ({ config, deps, clock }): OperationContribution => ({
    groups: { Advisor: 'Read-only advice from the audit trail: a scan, and one agent explained (Human only).' },
    operations: [
      defineOperation({
        id: 'AdvisorScan',
        operation: 'Query',
        description:
          'Scan the audit trail and keys for what needs attention: idle keys, ' +
          'agents with broad scopes, active anomalies, and the riskiest agents, ' +
          'over a look-back window. Use it for a periodic review or to pick an ' +
          'agent to explain. Changes nothing (one scan per node at a time). Human ' +
          'callers only; FeatureNotSupported when the audit store cannot be queried.',
        group: 'Advisor',
        summary: 'Idle keys, broad-scope agents, active anomalies and the riskiest agents (Human only)',
        errors: ['FeatureNotSupported'],
        input: AdvisorScanQuery,
        output: AdvisorScanReport,
        http: { method: 'GET', path: '/v1/advisor/scan' },
        attributes: { humanOnly: true, readOnly: true },
        resource: () => 'advisor',
        // One scan at a time per node: it reads up to 50,000 audit rows and every key's events.
        handle: oneAtATime('an advisor scan', async (input) => {
          queryable(deps.sink);
          const now = clock.now();
          const window = {
            since: new Date(now.getTime() - (input.lookbackDays ?? 90) * DAY_MS).toISOString(),
            until: now.toISOString(),
          };
          // Up to now, inclusive: the window's `until` is reported, not used as an exclusive bound.
          const tally = new WindowTally();
          const { truncated } = await eachWindowPage(deps.sink, { since: window.since }, ROW_CAP, (page) =>
            tally.add(page),
          );
          const keys = await keysWithEvents(deps.journal);
          const agents = await deps.journal.agents.list({ limit: 1000 });
          const report = scanReport({
            now,
            window,
            tally,
            truncated,
            keys,
            agents,
            unusedDays: input.unusedDays ?? 30,
            broadScope: input.broadScope ?? 5,
            top: input.top ?? 5,
          });
          return {
            result: report,
            audit: { context: { scannedRecords: String(report.scannedRecords), truncated: String(truncated) } },
          };
        }),
      }),
      defineOperation({
        id: 'AdvisorExplain',
        operation: 'Query',
        description:
          'Explain one agent by its agent id: its timeline of calls with risk ' +
          "stamps, the detectors' findings and the service's responses, a " +
          'summary, and an optional narration by the configured model. Use it to ' +
          'understand what an agent did before revoking or trusting it. Changes ' +
          'nothing. Human callers only; FeatureNotSupported when the audit store ' +
          'cannot be queried.',
        group: 'Advisor',
        summary: "One agent's timeline with risk stamps, findings, a summary and an optional narration (Human only)",
        errors: ['FeatureNotSupported'],
        input: Type.Object({ ...AdvisorExplainQuery.properties, agentId: Type.String({ maxLength: 128 }) }),
        output: AdvisorExplanation,
        http: { method: 'GET', path: '/v1/advisor/explain/:agentId' },
        attributes: { humanOnly: true, readOnly: true },
        resource: (input) => namedResource('agent:', input?.agentId),
        handle: async (input) => {
          queryable(deps.sink);
          const now = clock.now();
          const window = {
            since: new Date(now.getTime() - (input.lookbackDays ?? 30) * DAY_MS).toISOString(),
            until: now.toISOString(),
          };
          const maxEvents = input.maxEvents ?? 200;
          // The reads go to the sink's low-priority reader, as a scan's do; the narration (the model's own
          // time, bounded by its timeout) runs outside the gate, so a slow model does not refuse every other
          // explanation.
          const { own, system, agent } = await explanationGate(deps.sink).run(async () => {
            const [ownPage, agent] = await Promise.all([
              deps.sink.query!({
                since: window.since,
                actor: input.agentId,
                limit: maxEvents,
                offset: 0,
                background: true,
              }),
              deps.journal.agents.get(input.agentId),
            ]);
            const since = findingsSince(window.since, ownPage.records, maxEvents, agent);
            const system = (await readWindow(deps.sink, { since, actor: 'svc-system' }, 5_000)).records;
            return { own: ownPage.records, system, agent };
          });
          const timeline = timelineOf(input.agentId, window, own, system, agent, maxEvents);
          const narration = await narrate(config, timeline);
          return {
            result: { ...timeline, narration },
            audit: {
              context: {
                events: String(timeline.events.length),
                narration: `${narration.provider}:${narration.status}`,
              },
            },
          };
        },
      }),
    ],
  }),
});
