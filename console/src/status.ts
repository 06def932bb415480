import { ApiError } from './api.ts';
import { h } from './dom.ts';

/** A line that tells the user how the last action went, announced by screen readers. */
export interface StatusLine {
  el: HTMLElement;
  ok(text: string): void;
  fail(err: unknown): void;
  busy(text: string): void;
}

export function statusLine(): StatusLine {
  const el = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const set = (text: string, kind: string) => {
    el.textContent = text;
    el.className = `status ${kind}`;
  };
  return {
    el,
    ok: (text) => set(text, 'ok'),
    busy: (text) => set(text, 'busy'),
    fail: (err) => {
      // A refused credential sends the user to sign in; the page it left says nothing more.
      if (err instanceof ApiError && err.status === 401) return set('', '');
      if (err instanceof ApiError) return set(`${err.code}: ${err.message}`, 'error');
      const message = err instanceof Error ? err.message : String(err);
      return set(`${message.charAt(0).toUpperCase()}${message.slice(1)}.`, 'error');
    },
  };
}

/** Runs an action with its button disabled meanwhile, reporting failure on the status line. */
export async function act(
  button: HTMLButtonElement | null,
  status: StatusLine,
  action: () => Promise<void>,
): Promise<void> {
  if (button) button.disabled = true;
  try {
    await action();
  } catch (err) {
    status.fail(err);
  } finally {
    if (button) button.disabled = false;
  }
}

export function submitButton(form: HTMLFormElement): HTMLButtonElement | null {
  return form.querySelector('button[type="submit"]');
}
