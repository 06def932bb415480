import { Type } from '@sinclair/typebox';

// A value outside its range is 400 InvalidField naming the bound, never silently moved into it.
const Count = (minimum: number, maximum: number, description: string) =>
  Type.Optional(Type.Integer({ minimum, maximum, description: `${description}; ${minimum}..${maximum}` }));

/** GET /v1/advisor/scan query. */
export const AdvisorScanQuery = Type.Object({
  lookbackDays: Count(1, 3650, 'days of audit to read; default 90'),
  unusedDays: Count(0, 36500, 'a key unused this many days is idle; default 30'),
  broadScope: Count(1, 1000, 'an agent with this many operations or more is broad; default 5'),
  top: Count(1, 1000, 'how long each list of the report may be; default 5'),
});

/** GET /v1/advisor/explain/{agentId} query. */
export const AdvisorExplainQuery = Type.Object({
  lookbackDays: Count(1, 3650, 'days of audit to read; default 30'),
  maxEvents: Count(1, 1000, 'at most this many events in the timeline (the newest); default 200'),
});

const Window = Type.Object({ since: Type.String(), until: Type.String() });
const Anomaly = Type.Object(
  {
    detector: Type.String(),
    severity: Type.String(),
    actor: Type.String(),
    resource: Type.String(),
    message: Type.String(),
    occurredAt: Type.String(),
  },
  { title: 'AdvisorAnomaly' },
);

export const AdvisorScanReport = Type.Object(
  {
    window: Window,
    scannedRecords: Type.Integer(),
    truncated: Type.Boolean({ description: 'true when the window held more than the 50,000 rows read' }),
    unusedKeys: Type.Array(
      Type.Object({
        keyId: Type.String(),
        createdAt: Type.String(),
        lastUsedAt: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
    broadScopeAgents: Type.Array(
      Type.Object({ agentId: Type.String(), parent: Type.String(), scopes: Type.Array(Type.String()) }),
    ),
    activeAnomalies: Type.Array(Anomaly),
    riskiestAgents: Type.Array(
      Type.Object({
        agentId: Type.String(),
        maxRisk: Type.Number(),
        meanRisk: Type.Number(),
        denials: Type.Integer(),
        anomalies: Type.Integer(),
      }),
    ),
  },
  { title: 'AdvisorScanReport' },
);

export const AdvisorExplanation = Type.Object(
  {
    agentId: Type.String(),
    window: Window,
    events: Type.Array(
      Type.Object({
        occurredAt: Type.String(),
        operation: Type.String(),
        resource: Type.String(),
        outcome: Type.String(),
        riskScore: Type.Optional(Type.Number()),
        decision: Type.Optional(Type.String()),
        promptId: Type.Optional(
          Type.String({ description: 'the prompt the call named (X-Svc-Prompt-Id; context agent.promptId)' }),
        ),
        model: Type.Optional(
          Type.String({ description: 'the model the call named (X-Svc-Model; context agent.model)' }),
        ),
      }),
    ),
    prompts: Type.Array(
      Type.Object({
        promptId: Type.Union([Type.String(), Type.Null()], { description: 'null: the calls that named no prompt' }),
        models: Type.Array(Type.String()),
        events: Type.Integer(),
        refused: Type.Integer({ description: 'calls refused (permission, risk, step-up, rate limit)' }),
        first: Type.String(),
        last: Type.String(),
      }),
      { description: "the timeline's events grouped by the prompt they named, in order of each prompt's first call" },
    ),
    anomalies: Type.Array(Anomaly),
    summary: Type.String({ description: 'a plain account of the timeline, always present' }),
    narration: Type.Object({
      provider: Type.Union([
        Type.Literal('none'),
        Type.Literal('openai'),
        Type.Literal('anthropic'),
        Type.Literal('ollama'),
      ]),
      status: Type.Union([Type.Literal('ok'), Type.Literal('failed'), Type.Literal('off')]),
      text: Type.Optional(Type.String()),
    }),
  },
  { title: 'AdvisorExplanation' },
);
