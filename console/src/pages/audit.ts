import { call } from '../api.ts';
import { ROUTES } from '../routes.ts';
import { field, formValues, h, input, select, table, time } from '../dom.ts';
import { act, statusLine, submitButton } from '../status.ts';
import { OPERATIONS, type AuditPage, type AuditVerification } from '../types.ts';

/** The audit trail (filters, newest first, older pages by seek) and the chain verification. */
export function renderAudit(root: HTMLElement): void {
  const status = statusLine();
  const results = h('div', { class: 'results' });
  // Each page's `before` value: the first page has none; going back pops.
  const pages: Array<string | undefined> = [undefined];

  const filters = h(
    'form',
    { class: 'filters', 'aria-labelledby': 'filter-heading' },
    h('h2', { id: 'filter-heading' }, 'Filter the trail'),
    h(
      'div',
      { class: 'row' },
      field('Since', input('since', { placeholder: '2026-01-31' }), 'inclusive; a date or RFC 3339 time'),
      field('Until', input('until', { placeholder: '2026-02-01T12:00:00Z' }), 'exclusive'),
      field('Actor', input('actor', { maxlength: 256 })),
      field('Resource', input('key', { maxlength: 256 }), 'a key id, agent:<id>, ...'),
      field('Operation', select('op', [['', 'any'], ...OPERATIONS.map((op): [string, string] => [op, op])])),
      field('Prompt id', input('promptId', { maxlength: 256 })),
      field('Per page', input('limit', { type: 'number', min: 1, max: 1000, value: 50 })),
    ),
    h('button', { type: 'submit' }, 'Filter'),
  );

  async function load(before: string | undefined): Promise<void> {
    const { body } = await call<AuditPage>(ROUTES.queryAudit, { query: { ...formValues(filters), before } });
    const rows = body.records.map((record) => [
      time(record.occurredAt),
      `${record.principal.subject} (${record.principal.kind})`,
      record.operation,
      h('code', {}, record.resource),
      record.outcome,
      Object.entries(record.context)
        .map(([name, value]) => `${name}=${value}`)
        .join(', '),
    ]);
    const next = body.next;
    const nav = h('div', { class: 'pager' });
    if (pages.length > 1)
      nav.append(
        h(
          'button',
          {
            type: 'button',
            onclick: () =>
              void act(null, status, async () => {
                pages.pop();
                await load(pages.at(-1));
              }),
          },
          'Newer records',
        ),
      );
    if (body.hasMore && next)
      nav.append(
        h(
          'button',
          {
            type: 'button',
            onclick: () =>
              void act(null, status, async () => {
                pages.push(next);
                await load(next);
              }),
          },
          'Older records',
        ),
      );
    results.replaceChildren(
      table(
        `Audit records, page ${pages.length}, newest first`,
        ['Time', 'Actor', 'Operation', 'Resource', 'Outcome', 'Context'],
        rows,
      ),
      nav,
    );
    status.ok(
      `${body.records.length} record${body.records.length === 1 ? '' : 's'}${body.hasMore ? '; older ones on the next page' : ''}.`,
    );
  }

  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    pages.length = 1;
    void act(submitButton(filters), status, () => load(undefined));
  });

  const verifyStatus = statusLine();
  const full = h('input', { type: 'checkbox', name: 'full', value: 'true', id: 'verify-full' });
  const verify = h(
    'form',
    { class: 'card', 'aria-labelledby': 'verify-heading' },
    h('h2', { id: 'verify-heading' }, 'Verify the hash chain'),
    h(
      'div',
      { class: 'row' },
      field('Node', input('node', { maxlength: 256 }), 'blank: every node'),
      field('Since', input('since'), 'blank: the whole trail'),
      field('Until', input('until')),
    ),
    h(
      'div',
      { class: 'check' },
      full,
      h('label', { for: 'verify-full' }, 'Check every row again (not only rows since the last verification)'),
    ),
    h('button', { type: 'submit' }, 'Verify'),
    verifyStatus.el,
  );
  verify.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(submitButton(verify), verifyStatus, async () => {
      verifyStatus.busy('Verifying...');
      const { body } = await call<AuditVerification>(ROUTES.verifyAudit, { query: formValues(verify) });
      if (body.valid)
        verifyStatus.ok(
          `The chain is intact: ${body.checked} records checked on ${body.nodes.length ? body.nodes.join(', ') : 'no node'}.`,
        );
      else
        verifyStatus.fail(
          new Error(
            `the chain is broken at record ${body.firstBroken?.id} on node ${body.firstBroken?.node}: ${body.firstBroken?.reason} (${body.checked} records checked)`,
          ),
        );
    });
  });

  root.append(h('h1', {}, 'Audit'), filters, status.el, results, verify);
  void act(submitButton(filters), status, () => load(undefined));
}
