import { call } from '../api.ts';
import { ROUTES } from '../routes.ts';
import { button, field, formValues, h, input, table, time } from '../dom.ts';
import { act, statusLine, submitButton } from '../status.ts';
import { OPERATIONS, type Agent, type AgentList, type IssuedAgent } from '../types.ts';

/** Agent tokens: the list with a revoke button per live agent, and the issue form. */
export function renderAgents(root: HTMLElement): void {
  const status = statusLine();
  const results = h('div', { class: 'results' });

  const filters = h(
    'form',
    { class: 'filters', 'aria-labelledby': 'list-heading' },
    h('h2', { id: 'list-heading' }, 'List agents'),
    h(
      'div',
      { class: 'row' },
      field(
        'Parent',
        input('parent', { maxlength: 256 }),
        'blank: your own agents (or every agent, if the policy lets you)',
      ),
      field('At most', input('limit', { type: 'number', min: 1, max: 1000, value: 100 })),
    ),
    h('button', { type: 'submit' }, 'List'),
  );

  function revokeButton(agent: Agent): HTMLButtonElement {
    return button(
      'Revoke',
      (event) =>
        void act(event.currentTarget as HTMLButtonElement, status, async () => {
          await call(ROUTES.revokeAgent, { params: { agentId: agent.agentId } });
          await load();
          status.ok(`Agent ${agent.agentId} revoked: its token is refused from its next call on.`);
        }),
      { 'aria-label': `Revoke agent ${agent.agentId} (${agent.purpose})` },
    );
  }

  async function load(): Promise<void> {
    const { body } = await call<AgentList>(ROUTES.listAgents, { query: formValues(filters) });
    results.replaceChildren(
      table(
        'Agents, newest first',
        ['Agent', 'Purpose', 'Parent', 'Scopes', 'Issued', 'Expires', 'Status', 'Action'],
        body.agents.map((agent) => [
          h('code', {}, agent.agentId),
          agent.purpose,
          agent.parent,
          agent.scopes.join(', '),
          time(agent.issuedAt),
          time(agent.expiresAt),
          agent.revoked
            ? `revoked ${time(agent.revokedAt)}`
            : Date.parse(agent.expiresAt) < Date.now()
              ? 'expired'
              : 'live',
          agent.revoked ? '' : revokeButton(agent),
        ]),
      ),
    );
    status.ok(`${body.agents.length} agent${body.agents.length === 1 ? '' : 's'}.`);
  }

  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(submitButton(filters), status, load);
  });

  const label = input('label', { required: true, maxlength: 256 });
  const ttl = input('ttlSeconds', { type: 'number', min: 1, max: 86400, value: 3600, required: true });
  const scopes = h(
    'fieldset',
    { class: 'scopes' },
    h('legend', {}, 'Scopes (operations the agent may perform)'),
    ...OPERATIONS.map((op) =>
      h(
        'div',
        { class: 'check' },
        h('input', { type: 'checkbox', name: 'scope', value: op, id: `scope-${op}` }),
        h('label', { for: `scope-${op}` }, op),
      ),
    ),
  );
  const issueStatus = statusLine();
  const oneTime = h('div', { class: 'one-time' });
  const issue = h(
    'form',
    { class: 'card', 'aria-labelledby': 'issue-heading' },
    h('h2', { id: 'issue-heading' }, 'Issue an agent token'),
    h(
      'div',
      { class: 'row' },
      field('Label (what the agent is for)', label),
      field('Lifetime in seconds', ttl, '1..86400; never beyond your own token'),
    ),
    scopes,
    h('button', { type: 'submit' }, 'Issue token'),
    issueStatus.el,
    oneTime,
  );
  issue.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(submitButton(issue), issueStatus, async () => {
      const chosen = [...scopes.querySelectorAll<HTMLInputElement>('input:checked')].map((box) => box.value);
      const { body } = await call<IssuedAgent>(ROUTES.issueAgent, {
        body: { label: label.value.trim(), scopes: chosen, ttlSeconds: Number(ttl.value) },
      });
      showOnce(body);
      issueStatus.ok(`Agent ${body.agentId} issued; it expires ${time(body.expiresAt)}.`);
      await load();
    });
  });

  /**
   * The token exists only in this answer: the service keeps its id, never the token. It is shown here
   * until the user hides it, is not stored anywhere by the console, and is gone on leaving the page.
   */
  function showOnce(issued: IssuedAgent): void {
    const token = h('textarea', { rows: 4, readonly: true, id: 'issued-token', spellcheck: 'false' });
    token.value = issued.jwt;
    const copyStatus = statusLine();
    oneTime.replaceChildren(
      h(
        'div',
        { class: 'card warning', role: 'region', 'aria-labelledby': 'once-heading' },
        h('h3', { id: 'once-heading' }, 'Copy the token now: it is shown only once'),
        field(`Token of ${issued.agentId}`, token),
        h(
          'div',
          { class: 'actions' },
          button('Copy to clipboard', () => {
            token.select();
            navigator.clipboard?.writeText(issued.jwt).then(
              () => copyStatus.ok('Copied.'),
              () => copyStatus.ok('Selected: press Ctrl+C to copy.'),
            ) ?? copyStatus.ok('Selected: press Ctrl+C to copy.');
          }),
          button('I have copied it: hide the token', () => {
            token.value = '';
            oneTime.replaceChildren();
            issue.querySelector('button')?.focus();
          }),
        ),
        copyStatus.el,
      ),
    );
    token.focus();
  }

  root.append(h('h1', {}, 'Agents'), filters, status.el, results, issue);
  void act(submitButton(filters), status, load);
}
