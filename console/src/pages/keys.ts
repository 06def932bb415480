import { call } from '../api.ts';
import { ROUTES } from '../routes.ts';
import { field, formValues, h, input, select, table, time } from '../dom.ts';
import { act, statusLine, submitButton } from '../status.ts';
import { EC_CURVES, ED_CURVES, KEY_ALGORITHMS, KEY_STATES, type KeyPage, type ManagedKey } from '../types.ts';

/** What the size-or-curve choice offers per algorithm; the first is the service's default. */
const SIZES = new Map<string, Array<[string, string]>>([
  [
    'AES',
    [
      ['256', '256 bits'],
      ['192', '192 bits'],
      ['128', '128 bits'],
    ],
  ],
  [
    'HMAC',
    [
      ['256', '256 bits'],
      ['384', '384 bits'],
      ['512', '512 bits'],
    ],
  ],
  [
    'RSA',
    [
      ['3072', '3072 bits'],
      ['2048', '2048 bits'],
      ['4096', '4096 bits'],
    ],
  ],
  ['EC', EC_CURVES.map((c) => [c, c])],
  ['EdDSA', ED_CURVES.map((c) => [c, c])],
]);

/** The key list (GET /v1/keys with its filters, a page at a time) and the create form. */
export function renderKeys(root: HTMLElement): void {
  const status = statusLine();
  const results = h('div', { class: 'results' });
  const pages: Array<string | undefined> = [undefined];

  const filters = h(
    'form',
    { class: 'filters', 'aria-labelledby': 'find-heading' },
    h('h2', { id: 'find-heading' }, 'Find keys'),
    h(
      'div',
      { class: 'row' },
      field('Name', input('name', { maxlength: 256 }), 'exact, or a glob: payments-*'),
      field('State', select('state', [['', 'any'], ...KEY_STATES.map((s): [string, string] => [s, s])])),
      field('Algorithm', select('algorithm', [['', 'any'], ...KEY_ALGORITHMS.map((a): [string, string] => [a, a])])),
      field('Owner', input('owner', { maxlength: 1024 })),
      field('Created after', input('createdAfter', { placeholder: '2026-01-31' })),
      field('Created before', input('createdBefore', { placeholder: '2026-12-31T00:00:00Z' })),
      field('Per page', input('limit', { type: 'number', min: 1, max: 1000, value: 50 })),
    ),
    h('button', { type: 'submit' }, 'Search'),
  );

  async function load(cursor: string | undefined): Promise<void> {
    const { body } = await call<KeyPage>(ROUTES.locateKeys, { query: { ...formValues(filters), cursor } });
    const rows = body.keys.map((key) => [
      h('a', { href: `#/keys/${encodeURIComponent(key.id)}` }, key.spec.name),
      h('code', {}, key.id),
      key.spec.curve ? `${key.spec.algorithm} ${key.spec.curve}` : `${key.spec.algorithm} ${key.spec.sizeBits}`,
      key.state,
      String(key.currentVersion),
      key.owner,
      time(key.createdAt),
    ]);
    const next = body.nextCursor;
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
          'Previous page',
        ),
      );
    if (next)
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
          'Next page',
        ),
      );
    results.replaceChildren(
      table(`Keys, page ${pages.length}`, ['Name', 'Id', 'Algorithm', 'State', 'Version', 'Owner', 'Created'], rows),
      nav,
    );
    status.ok(
      `${body.keys.length} key${body.keys.length === 1 ? '' : 's'} on this page${next ? '; more on the next' : ''}.`,
    );
  }

  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    pages.length = 1;
    void act(submitButton(filters), status, () => load(undefined));
  });

  const algorithm = select(
    'algorithm',
    KEY_ALGORITHMS.map((a): [string, string] => [a, a]),
  );
  const size = select('size', SIZES.get('AES')!);
  algorithm.addEventListener('change', () =>
    size.replaceChildren(...SIZES.get(algorithm.value)!.map(([value, text]) => h('option', { value }, text))),
  );
  const name = input('name', { required: true, maxlength: 256 });
  const exportable = h('input', { type: 'checkbox', name: 'exportable' });
  const createStatus = statusLine();
  const create = h(
    'form',
    { class: 'card', 'aria-labelledby': 'create-heading' },
    h('h2', { id: 'create-heading' }, 'Create a key'),
    h(
      'div',
      { class: 'row' },
      field('Key name', name),
      field('Key algorithm', algorithm),
      field('Size or curve', size),
    ),
    h(
      'div',
      { class: 'check' },
      exportable,
      h('label', { for: (exportable.id = 'create-exportable') }, 'Exportable (fixed at creation)'),
    ),
    h('button', { type: 'submit' }, 'Create key'),
    createStatus.el,
  );
  create.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(submitButton(create), createStatus, async () => {
      const curveOrSize = size.value;
      const spec = {
        name: name.value.trim(),
        algorithm: algorithm.value,
        ...(/^\d+$/.test(curveOrSize) ? { sizeBits: Number(curveOrSize) } : { curve: curveOrSize }),
        exportable: exportable.checked,
      };
      const { body } = await call<ManagedKey>(ROUTES.createKey, { body: { spec } });
      location.hash = `#/keys/${encodeURIComponent(body.id)}`;
    });
  });

  root.append(h('h1', {}, 'Keys'), filters, status.el, results, create);
  void act(submitButton(filters), status, () => load(undefined));
}
