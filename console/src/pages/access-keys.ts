import { call } from '../api.ts';
import { ROUTES } from '../routes.ts';
import { button, field, formValues, h, input, table, time } from '../dom.ts';
import { act, statusLine, submitButton } from '../status.ts';
import type { AccessKey, AccessKeyList, CreatedAccessKey } from '../types.ts';

/**
 * Access keys (AWS Signature Version 4): the list, with a delete button per key, and the create form,
 * which shows the new secret once.
 */
export function renderAccessKeys(root: HTMLElement): void {
  const status = statusLine();
  const results = h('div', { class: 'results' });

  const filters = h(
    'form',
    { class: 'filters', 'aria-labelledby': 'list-heading' },
    h('h2', { id: 'list-heading' }, 'List access keys'),
    h(
      'div',
      { class: 'row' },
      field('Principal', input('principal', { maxlength: 256 }), "blank: every key; else one Human's or Service's"),
      field('At most', input('limit', { type: 'number', min: 1, max: 1000, value: 100 })),
    ),
    h('button', { type: 'submit' }, 'List'),
  );

  function deleteButton(key: AccessKey): HTMLButtonElement {
    return button(
      'Delete',
      (event) =>
        void act(event.currentTarget as HTMLButtonElement, status, async () => {
          await call(ROUTES.deleteAccessKey, { params: { accessKeyId: key.accessKeyId } });
          await load();
          status.ok(`Access key ${key.accessKeyId} deleted: requests signed with it are refused from now on.`);
        }),
      { 'aria-label': `Delete access key ${key.accessKeyId} (${key.principal.kind} ${key.principal.subject})` },
    );
  }

  async function load(): Promise<void> {
    const { body } = await call<AccessKeyList>(ROUTES.listAccessKeys, { query: formValues(filters) });
    results.replaceChildren(
      table(
        'Access keys, by id',
        ['Access key', 'Principal', 'Created', 'By', 'Action'],
        body.accessKeys.map((key) => [
          h('code', {}, key.accessKeyId),
          `${key.principal.subject} (${key.principal.kind})`,
          time(key.createdAt),
          key.createdBy,
          deleteButton(key),
        ]),
      ),
    );
    const more = body.nextAfter ? ' There are more: narrow by principal, or raise "At most".' : '';
    status.ok(`${body.accessKeys.length} access key${body.accessKeys.length === 1 ? '' : 's'}.${more}`);
  }

  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(submitButton(filters), status, load);
  });

  const service = input('service', { maxlength: 256 });
  const createStatus = statusLine();
  const oneTime = h('div', { class: 'one-time' });
  const create = h(
    'form',
    { class: 'card', 'aria-labelledby': 'create-heading' },
    h('h2', { id: 'create-heading' }, 'Create an access key'),
    field('For the Service', service, 'blank: a key of your own, with your groups as they are now'),
    h('button', { type: 'submit' }, 'Create access key'),
    createStatus.el,
    oneTime,
  );
  create.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(submitButton(create), createStatus, async () => {
      const named = service.value.trim();
      const { body } = await call<CreatedAccessKey>(ROUTES.createAccessKey, {
        body: named === '' ? {} : { service: named },
      });
      showOnce(body);
      createStatus.ok(`Access key ${body.accessKeyId} created for ${body.principal.subject} (${body.principal.kind}).`);
      await load();
    });
  });

  /**
   * The secret exists only in this answer: the service keeps it sealed and never shows it again. It is
   * shown here until the user hides it, is not stored anywhere by the console, and is gone on leaving the page.
   */
  function showOnce(created: CreatedAccessKey): void {
    const secret = h('textarea', { rows: 2, readonly: true, id: 'created-secret', spellcheck: 'false' });
    secret.value = created.secretAccessKey;
    const copyStatus = statusLine();
    oneTime.replaceChildren(
      h(
        'div',
        { class: 'card warning', role: 'region', 'aria-labelledby': 'secret-heading' },
        h('h3', { id: 'secret-heading' }, 'Copy the secret access key now: it is shown only once'),
        field(
          'Access key id',
          input('createdAccessKeyId', { readonly: true, id: 'created-id', value: created.accessKeyId }),
        ),
        field(`Secret access key of ${created.accessKeyId}`, secret),
        h(
          'div',
          { class: 'actions' },
          button('Copy the secret', () => {
            secret.select();
            navigator.clipboard?.writeText(created.secretAccessKey).then(
              () => copyStatus.ok('Copied.'),
              () => copyStatus.ok('Selected: press Ctrl+C to copy.'),
            ) ?? copyStatus.ok('Selected: press Ctrl+C to copy.');
          }),
          button('I have copied it: hide the secret', () => {
            secret.value = '';
            oneTime.replaceChildren();
            create.querySelector('button')?.focus();
          }),
        ),
        copyStatus.el,
      ),
    );
    secret.focus();
  }

  root.append(h('h1', {}, 'Access keys'), filters, status.el, results, create);
  void act(submitButton(filters), status, load);
}
