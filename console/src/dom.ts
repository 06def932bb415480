/**
 * Element helpers. Every value from the API (key names, audit context, agent purposes) is attacker-
 * controllable, so text only ever reaches the page as text nodes or attribute values: nothing here
 * parses HTML.
 */
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

export function clear(el: Element): void {
  el.replaceChildren();
}

let fieldIds = 0;
/** A labelled input; the label names it for screen readers and clicking it focuses the input. */
export function field(
  label: string,
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
  hint?: string,
): HTMLElement {
  const id = input.id || `f${++fieldIds}`;
  input.id = id;
  const hintEl = hint ? h('span', { class: 'hint', id: `${id}-hint` }, hint) : null;
  if (hintEl) input.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hintEl);
}

export function input(name: string, attrs: Attrs = {}): HTMLInputElement {
  return h('input', { name, type: 'text', autocomplete: 'off', spellcheck: 'false', ...attrs });
}

export function select(name: string, options: Array<[string, string]>, attrs: Attrs = {}): HTMLSelectElement {
  return h('select', { name, ...attrs }, ...options.map(([value, text]) => h('option', { value }, text)));
}

export function button(text: string, onclick: (event: Event) => void, attrs: Attrs = {}): HTMLButtonElement {
  return h('button', { type: 'button', ...attrs, onclick }, text);
}

/** A table with a caption and column headers; each row's cells are text or nodes. */
export function table(caption: string, headers: string[], rows: Child[][]): HTMLElement {
  if (!rows.length) return h('p', { class: 'empty' }, `${caption}: none.`);
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...headers.map((text) => h('th', { scope: 'col' }, text)))),
      h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((cell) => h('td', {}, cell))))),
    ),
  );
}

/** A definition list of label/value pairs, skipping absent values. */
export function facts(pairs: Array<[string, Child]>): HTMLElement {
  const dl = h('dl', { class: 'facts' });
  for (const [term, value] of pairs) {
    if (value === undefined || value === null || value === '') continue;
    append(dl, h('dt', {}, term), h('dd', {}, value));
  }
  return dl;
}

/** The values of a form's named controls, blank ones left out. */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of new FormData(form).entries()) {
    if (typeof value === 'string' && value.trim() !== '') values[name] = value.trim();
  }
  return values;
}

export function time(iso: string | undefined): string {
  if (!iso) return '';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
