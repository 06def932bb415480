import t from 'tap';
import type { AgentRecord, AuditRecord } from '../../kernel/index.ts';
import { findingsSince } from '../../plugins/advisor/explain.ts';

const windowSince = '2026-11-01T00:00:00.000Z';
const call = (occurredAt: string) => ({ occurredAt }) as AuditRecord;
const agent = (issuedAt: string) => ({ issuedAt }) as AgentRecord;
const minutesBefore = (iso: string, m: number) => new Date(Date.parse(iso) - m * 60_000).toISOString();

t.test(
  'an agent with no call in the window: from its issue (a finding may follow a call made before the window)',
  async (t) => {
    t.equal(
      findingsSince(windowSince, [], 200, agent('2026-11-20T10:00:00.000Z')),
      minutesBefore('2026-11-20T10:00:00.000Z', 5),
    );
    t.equal(
      findingsSince(windowSince, [], 200, undefined),
      windowSince,
      "and from the window's start for an agent the journal does not know",
    );
  },
);

t.test(
  "findings are looked for from the agent's first call in the window " +
    '(five minutes of clock slack), when the window holds all its calls',
  async (t) => {
    const own = [call('2026-11-25T12:00:00.000Z'), call('2026-11-25T11:00:00.000Z')]; // newest first
    t.equal(findingsSince(windowSince, own, 200, undefined), minutesBefore('2026-11-25T11:00:00.000Z', 5));
    t.equal(
      findingsSince(windowSince, own, 200, agent('2026-11-25T10:00:00.000Z')),
      minutesBefore('2026-11-25T11:00:00.000Z', 5),
      'the later of issue and first call',
    );
  },
);

t.test(
  "when the calls were cut at maxEvents, from the agent's issue: its earlier calls can hold findings too",
  async (t) => {
    const own = [call('2026-11-25T12:00:00.000Z'), call('2026-11-25T11:00:00.000Z')];
    t.equal(
      findingsSince(windowSince, own, 2, agent('2026-11-20T10:00:00.000Z')),
      minutesBefore('2026-11-20T10:00:00.000Z', 5),
    );
    t.equal(
      findingsSince(windowSince, own, 2, undefined),
      windowSince,
      'an agent the journal no longer knows: the whole window',
    );
  },
);

t.test('never before the window, whatever the agent says', async (t) => {
  t.equal(
    findingsSince(windowSince, [call('2026-11-25T11:00:00.000Z')], 1, agent('2020-01-01T00:00:00.000Z')),
    windowSince,
  );
  t.equal(findingsSince(windowSince, [call('2026-11-25T11:00:00.000Z')], 1, agent('not a date')), windowSince);
});
