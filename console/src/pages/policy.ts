import { call } from '../api.ts';
import { button, facts, field, h, table, time } from '../dom.ts';
import { ROUTES } from '../routes.ts';
import { act, statusLine } from '../status.ts';
import type { AuditPage, AuditRecord, PolicyAnswer } from '../types.ts';

const HISTORY_PAGE = 50;
const [HISTORY_TRIES, HISTORY_RETRY_MS] = [20, 250];
const MAPS = ['roleBindings', 'subjectBindings'] as const;
type PolicyDocument = Pick<PolicyAnswer, (typeof MAPS)[number]>;

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The document the editor holds: the two maps a PUT replaces, as GET answered them. */
const documentText = (policy: PolicyAnswer) =>
  JSON.stringify({ roleBindings: policy.roleBindings, subjectBindings: policy.subjectBindings }, null, 2);

/**
 * The editor's text as the two maps, or what is wrong with it before anything is sent. What is inside
 * a binding is the service's to check: it names every bad one at once.
 */
function parseDocument(text: string): PolicyDocument {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`the bindings are not JSON: ${(err as Error).message}`);
  }
  if (!isMap(parsed)) throw new Error('the bindings must be a JSON object with roleBindings and subjectBindings');
  const extra = Object.keys(parsed).filter((k) => !(MAPS as readonly string[]).includes(k));
  if (extra.length) throw new Error(`the bindings hold ${extra.join(', ')}: only roleBindings and subjectBindings`);
  for (const name of MAPS)
    if (!isMap(parsed[name])) throw new Error(`the bindings need ${name}, an object (it may be {})`);
  return {
    roleBindings: parsed.roleBindings as PolicyDocument['roleBindings'],
    subjectBindings: parsed.subjectBindings as PolicyDocument['subjectBindings'],
  };
}

/** One row per stored version: the audit trail keeps one Success record of Administer on `policy` for each. */
const versionRows = (records: AuditRecord[]) =>
  records
    .filter((r) => r.outcome === 'Success' && r.context['policy.version'] !== undefined)
    .map((r) => [
      r.context['policy.version'],
      time(r.occurredAt),
      `${r.principal.subject} (${r.principal.kind})`,
      r.context['policy.diff'] ?? '',
    ]);

/**
 * The role-based policy: the version in force and its bindings, an editor that stores the next version
 * with the ETag of the one it was made from (If-Match), and the versions before, from the audit trail
 * (the API has no history endpoint).
 */
export async function renderPolicy(root: HTMLElement): Promise<void> {
  const status = statusLine();
  const heading = h('h1', {}, 'Policy');
  root.append(heading, status.el);

  const current = h('div');
  const currentCard = h(
    'section',
    { class: 'card', 'aria-labelledby': 'current-heading' },
    h('h2', { id: 'current-heading' }, 'Version in force'),
    current,
  );

  // The ETag of the version the editor's text was made from: a save is refused (412) once another is stored.
  let etag = '';
  const editor = h('textarea', { name: 'bindings', rows: 16, spellcheck: 'false', autocomplete: 'off' });
  const basedOn = h('p', { class: 'hint' });
  const editStatus = statusLine();

  function show(policy: PolicyAnswer): void {
    etag = policy.etag;
    current.replaceChildren(
      facts([
        ['Version', String(policy.version)],
        ['ETag', h('code', {}, policy.etag)],
      ]),
      h(
        'pre',
        { class: 'output', tabindex: 0, 'aria-label': `Bindings of version ${policy.version} (JSON)` },
        documentText(policy),
      ),
    );
    editor.value = documentText(policy);
    basedOn.textContent =
      `Made from version ${policy.version}: it is stored as version ${policy.version + 1} only while ` +
      `version ${policy.version} is still the latest. Both maps are replaced whole.`;
  }

  /** A version just saved or read: shown, in the editor, and waited for at the top of the history. */
  async function adopt(policy: PolicyAnswer): Promise<void> {
    show(policy);
    pages.length = 1;
    await act(null, historyStatus, () => loadHistory(undefined, String(policy.version)));
  }

  const save = button('Save as a new version', (event) => {
    void act(event.currentTarget as HTMLButtonElement, editStatus, async () => {
      const document = parseDocument(editor.value);
      editStatus.busy('Saving...');
      const { body } = await call<PolicyAnswer>(ROUTES.putPolicy, { body: document, headers: { 'If-Match': etag } });
      await adopt(body);
      editStatus.ok(`Saved as version ${body.version}: every node applies it within 2 seconds.`);
    });
  });
  const reload = button('Load the latest version', (event) => {
    void act(event.currentTarget as HTMLButtonElement, editStatus, async () => {
      const { body } = await call<PolicyAnswer>(ROUTES.getPolicy);
      await adopt(body);
      editStatus.ok(`Version ${body.version} loaded; the editor holds it now.`);
    });
  });
  const editCard = h(
    'section',
    { class: 'card', 'aria-labelledby': 'edit-heading' },
    h('h2', { id: 'edit-heading' }, 'Change the policy'),
    field('Bindings (JSON)', editor, 'roleBindings: group -> binding; subjectBindings: subject -> binding'),
    basedOn,
    h('div', { class: 'actions' }, save, reload),
    editStatus.el,
  );

  const history = h('div');
  const historyStatus = statusLine();
  // Each page's `before` value: the first page has none; going back pops.
  const pages: Array<string | undefined> = [undefined];
  const pageButton = (text: string, move: () => void) =>
    button(text, () => {
      move();
      void act(null, historyStatus, () => loadHistory(pages.at(-1)));
    });

  /**
   * A page of the history; with `awaited`, the first page once it shows that version. A version's record
   * reaches the audit trail through the service's outbox, a moment after the PUT was answered: the page
   * asks again for a few seconds rather than show a history without the version just saved.
   */
  async function loadHistory(before: string | undefined, awaited?: string): Promise<void> {
    const query = { key: 'policy', op: 'Administer', limit: HISTORY_PAGE, before };
    let { body } = await call<AuditPage>(ROUTES.queryAudit, { query });
    for (let tries = 0; awaited && tries < HISTORY_TRIES; tries++) {
      if (body.records.some((r) => r.context['policy.version'] === awaited)) break;
      await new Promise((resolve) => setTimeout(resolve, HISTORY_RETRY_MS));
      ({ body } = await call<AuditPage>(ROUTES.queryAudit, { query }));
    }
    const nav = h('div', { class: 'pager' });
    if (pages.length > 1) nav.append(pageButton('Newer versions', () => pages.pop()));
    const next = body.next;
    if (body.hasMore && next) nav.append(pageButton('Older versions', () => pages.push(next)));
    history.replaceChildren(
      table('Stored versions, newest first', ['Version', 'Stored', 'By', 'Changes'], versionRows(body.records)),
      nav,
    );
    historyStatus.ok('');
  }
  const historyCard = h(
    'section',
    { class: 'card', 'aria-labelledby': 'history-heading' },
    h('h2', { id: 'history-heading' }, 'History'),
    h(
      'p',
      { class: 'hint' },
      'From the audit trail: operation Administer on the resource policy (+ added, ~ changed, - removed).',
    ),
    history,
    historyStatus.el,
  );

  try {
    show((await call<PolicyAnswer>(ROUTES.getPolicy)).body);
  } catch (err) {
    status.fail(err);
    return;
  }
  // The user may have moved on while the policy was read: leave the page that is there alone.
  if (!heading.isConnected) return;
  root.append(currentCard, editCard, historyCard);
  // The audit trail is Human only and needs Query on audit: its refusal is this card's, not the page's.
  await act(null, historyStatus, () => loadHistory(undefined));
}
