import { call } from '../api.ts';
import { ROUTES } from '../routes.ts';
import { button, facts, field, formValues, h, input, table, time } from '../dom.ts';
import { act, statusLine, submitButton } from '../status.ts';
import type { AdvisorExplanation, AdvisorScanReport } from '../types.ts';

/** The advisor: a scan of the whole deployment, and one agent's timeline explained. */
export function renderAdvisor(root: HTMLElement): void {
  const scanStatus = statusLine();
  const report = h('div', { class: 'results' });
  const explainStatus = statusLine();
  const explanation = h('div', { class: 'results' });
  const agentId = input('agentId', { required: true, maxlength: 64 });

  const scan = h(
    'form',
    { class: 'filters', 'aria-labelledby': 'scan-heading' },
    h('h2', { id: 'scan-heading' }, 'Scan'),
    h(
      'div',
      { class: 'row' },
      field('Days of audit to read', input('lookbackDays', { type: 'number', min: 1, max: 3650, placeholder: '90' })),
      field('Idle after days', input('unusedDays', { type: 'number', min: 0, max: 36500, placeholder: '30' })),
      field(
        'Broad scope from operations',
        input('broadScope', { type: 'number', min: 1, max: 1000, placeholder: '5' }),
      ),
      field('Longest list', input('top', { type: 'number', min: 1, max: 1000, placeholder: '5' })),
    ),
    h('button', { type: 'submit' }, 'Run scan'),
  );

  const explainButton = (id: string) =>
    button(
      'Explain',
      () => {
        agentId.value = id;
        explain.requestSubmit();
        explain.scrollIntoView();
      },
      { 'aria-label': `Explain agent ${id}` },
    );

  scan.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(submitButton(scan), scanStatus, async () => {
      scanStatus.busy('Scanning the audit trail...');
      const { body } = await call<AdvisorScanReport>(ROUTES.advisorScan, { query: formValues(scan) });
      report.replaceChildren(
        table(
          'Idle keys',
          ['Key', 'Created', 'Last used'],
          body.unusedKeys.map((k) => [
            h('a', { href: `#/keys/${encodeURIComponent(k.keyId)}` }, k.keyId),
            time(k.createdAt),
            k.lastUsedAt ? time(k.lastUsedAt) : 'never',
          ]),
        ),
        table(
          'Broad-scope agents',
          ['Agent', 'Parent', 'Scopes', ''],
          body.broadScopeAgents.map((a) => [
            h('code', {}, a.agentId),
            a.parent,
            a.scopes.join(', '),
            explainButton(a.agentId),
          ]),
        ),
        table(
          'Active anomalies',
          ['Time', 'Detector', 'Severity', 'Actor', 'Resource', 'Message'],
          body.activeAnomalies.map((a) => [time(a.occurredAt), a.detector, a.severity, a.actor, a.resource, a.message]),
        ),
        table(
          'Riskiest agents',
          ['Agent', 'Highest risk', 'Mean risk', 'Denials', 'Anomalies', ''],
          body.riskiestAgents.map((a) => [
            h('code', {}, a.agentId),
            a.maxRisk.toFixed(2),
            a.meanRisk.toFixed(2),
            String(a.denials),
            String(a.anomalies),
            explainButton(a.agentId),
          ]),
        ),
      );
      scanStatus.ok(
        `Scanned ${body.scannedRecords} audit records from ${time(body.window.since)} to ${time(body.window.until)}${body.truncated ? ' (the window held more: only the newest were read)' : ''}.`,
      );
    });
  });

  const explain = h(
    'form',
    { class: 'filters', 'aria-labelledby': 'explain-heading' },
    h('h2', { id: 'explain-heading' }, 'Explain an agent'),
    h(
      'div',
      { class: 'row' },
      field('Agent id', agentId, 'agent-<uuid>'),
      field('Days of audit to read', input('lookbackDays', { type: 'number', min: 1, max: 3650, placeholder: '30' })),
      field('Most events', input('maxEvents', { type: 'number', min: 1, max: 1000, placeholder: '200' })),
    ),
    h('button', { type: 'submit' }, 'Explain'),
  );
  explain.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(submitButton(explain), explainStatus, async () => {
      explainStatus.busy("Reading the agent's timeline...");
      const { agentId: id = '', ...query } = formValues(explain);
      const { body } = await call<AdvisorExplanation>(ROUTES.advisorExplain, { params: { agentId: id }, query });
      const narration =
        body.narration.status === 'ok' && body.narration.text
          ? h(
              'section',
              { class: 'card', 'aria-labelledby': 'narration-heading' },
              h('h3', { id: 'narration-heading' }, `Narration (${body.narration.provider})`),
              h('p', { class: 'narration' }, body.narration.text),
            )
          : h(
              'p',
              { class: 'hint' },
              body.narration.status === 'off'
                ? 'Narration is off on this service (advisor.llm.provider is none).'
                : `Narration by ${body.narration.provider} failed; the summary above is complete on its own.`,
            );
      explanation.replaceChildren(
        h('h3', {}, `Agent ${body.agentId}`),
        facts([
          ['Window', `${time(body.window.since)} to ${time(body.window.until)}`],
          ['Events', String(body.events.length)],
        ]),
        h('p', { class: 'summary' }, body.summary),
        narration,
        table(
          'Prompts',
          ['Prompt id', 'Models', 'Events', 'Refused', 'First', 'Last'],
          body.prompts.map((p) => [
            p.promptId ?? '(none named)',
            p.models.join(', '),
            String(p.events),
            String(p.refused),
            time(p.first),
            time(p.last),
          ]),
        ),
        table(
          'Anomalies',
          ['Time', 'Detector', 'Severity', 'Resource', 'Message'],
          body.anomalies.map((a) => [time(a.occurredAt), a.detector, a.severity, a.resource, a.message]),
        ),
        table(
          'Timeline, newest last',
          ['Time', 'Operation', 'Resource', 'Outcome', 'Risk', 'Decision', 'Prompt', 'Model'],
          body.events.map((e) => [
            time(e.occurredAt),
            e.operation,
            e.resource,
            e.outcome,
            e.riskScore === undefined ? '' : e.riskScore.toFixed(2),
            e.decision ?? '',
            e.promptId ?? '',
            e.model ?? '',
          ]),
        ),
      );
      explainStatus.ok(`Explained ${body.agentId}: ${body.events.length} events.`);
    });
  });

  root.append(h('h1', {}, 'Advisor'), scan, scanStatus.el, report, explain, explainStatus.el, explanation);
}
