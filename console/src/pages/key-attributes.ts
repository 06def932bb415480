import { call } from '../api.ts';
import { button, field, h, input, table, time } from '../dom.ts';
import type { KeyAction } from '../key-actions.ts';
import { ROUTES } from '../routes.ts';
import type { ManagedKey } from '../types.ts';
import type { Run } from './key.ts';

const ALIAS_PREFIX = 'alias/';

/**
 * The pause beside the lifecycle: Disable (with an optional reason) while the key is enabled; while it is
 * disabled, since when and why, and Enable for a Human only (the service refuses anyone else, so the
 * button is not offered to them).
 */
export function pauseControls(key: ManagedKey, allowed: Set<KeyAction>, human: boolean, run: Run): HTMLElement[] {
  if (key.enabled) {
    const out: HTMLElement[] = [h('p', {}, 'Enabled: the key serves as its state allows.')];
    if (!allowed.has('disable')) return out;
    const reason = input('disableReason', { maxlength: 1024 });
    out.push(
      h(
        'div',
        { class: 'row' },
        field('Reason for disabling', reason, 'optional; kept with the key and in the audit trail'),
        button(
          'Disable',
          run('Disabling', async () => {
            const why = reason.value.trim();
            await call(ROUTES.disableKey, { params: { id: key.id }, body: why ? { reason: why } : {} });
            return 'Disabled: every cryptographic call and export is refused until a Human enables the key.';
          }),
          { class: 'danger' },
        ),
      ),
    );
    return out;
  }
  const since = key.disabledAt ? ` since ${time(key.disabledAt)}` : '';
  const out: HTMLElement[] = [
    h(
      'p',
      { class: 'alert' },
      `Disabled${since}${key.disabledReason ? ` (${key.disabledReason})` : ''}: every cryptographic call, ` +
        'its public key and its export are refused until a Human enables it.',
    ),
  ];
  if (!allowed.has('enable')) return out;
  if (!human) out.push(h('p', {}, 'Only a Human can enable it again.'));
  else
    out.push(
      h(
        'div',
        { class: 'actions' },
        button(
          'Enable',
          run('Enabling', async () => {
            await call(ROUTES.enableKey, { params: { id: key.id } });
            return 'Enabled: the key serves again as its state allows.';
          }),
        ),
      ),
    );
  return out;
}

/** The aliases that name the key, each with Remove, and a field to add one (or move one here). */
export function aliasControls(key: ManagedKey, allowed: Set<KeyAction>, run: Run): HTMLElement[] {
  const names = key.aliases ?? [];
  const may = allowed.has('alias');
  const remove = (name: string) =>
    button(
      'Remove',
      run('Removing the alias', async () => {
        await call(ROUTES.deleteAlias, { params: { name } });
        return `Alias ${name} deleted; the key is unchanged.`;
      }),
      { 'aria-label': `Remove alias ${name}` },
    );
  const out: HTMLElement[] = [
    h('h3', {}, 'Aliases'),
    names.length
      ? h('ul', { class: 'names' }, ...names.map((name) => h('li', {}, h('code', {}, name), may ? remove(name) : null)))
      : h('p', { class: 'empty' }, 'No alias names this key.'),
  ];
  if (!may) return out;
  const alias = input('alias', { maxlength: 256, placeholder: 'alias/payments' });
  const move = h('input', { type: 'checkbox', id: 'alias-move' });
  out.push(
    h(
      'div',
      { class: 'row' },
      field('New alias', alias, 'alias/NAME, or NAME; usable wherever the key id is'),
      h('div', { class: 'check' }, move, h('label', { for: 'alias-move' }, 'Move it here if it names another key')),
      button(
        'Add alias',
        run('Adding the alias', async () => {
          const typed = alias.value.trim();
          if (!typed) throw new Error('type the alias to add first');
          const name = typed.startsWith(ALIAS_PREFIX) ? typed : `${ALIAS_PREFIX}${typed}`;
          const { body } = await call<{ previousKeyId?: string }>(ROUTES.putAlias, {
            params: { name },
            body: { keyId: key.id, ...(move.checked ? {} : { createOnly: true }) },
          });
          return body.previousKeyId
            ? `Alias ${name} moved here from key ${body.previousKeyId}.`
            : `Alias ${name} now names this key.`;
        }),
      ),
    ),
  );
  return out;
}

/** The key's tags in a table, each with Remove, and fields to set one (a key set again takes the new value). */
export function tagControls(key: ManagedKey, allowed: Set<KeyAction>, run: Run): HTMLElement[] {
  const may = allowed.has('tag');
  const remove = (name: string) =>
    button(
      'Remove',
      run('Removing the tag', async () => {
        await call(ROUTES.untagKey, { params: { id: key.id }, query: { keys: name } });
        return `Tag ${name} removed.`;
      }),
      { 'aria-label': `Remove tag ${name}` },
    );
  const rows = Object.entries(key.tags ?? {}).map(([name, value]) =>
    may ? [h('code', {}, name), value, remove(name)] : [h('code', {}, name), value],
  );
  const headers = may ? ['Key', 'Value', 'Remove'] : ['Key', 'Value'];
  const out: HTMLElement[] = [h('h3', {}, 'Tags'), table("The key's tags", headers, rows)];
  if (!may) return out;
  const name = input('tagKey', { maxlength: 128 });
  const value = input('tagValue', { maxlength: 256 });
  out.push(
    h(
      'div',
      { class: 'row' },
      field('Tag key', name),
      field('Tag value', value, 'may be empty'),
      button(
        'Set tag',
        run('Setting the tag', async () => {
          const tag = name.value.trim();
          if (!tag) throw new Error('type the tag key first');
          await call(ROUTES.tagKey, { params: { id: key.id }, body: { tags: { [tag]: value.value } } });
          return `Tag ${tag} set.`;
        }),
      ),
    ),
  );
  return out;
}
