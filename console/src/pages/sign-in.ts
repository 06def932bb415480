import { ApiError, call } from '../api.ts';
import { ROUTES } from '../routes.ts';
import { field, h, input } from '../dom.ts';
import { saveCredential, type Credential } from '../session.ts';

/**
 * Sign in with the same credential the API takes: a bearer token (hmac or oidc mode) or, on a
 * development server, the X-Svc-User header. The credential is tried with one read of the key list
 * before it is kept.
 */
export function renderSignIn(root: HTMLElement, message: string | undefined, done: () => void): void {
  const problem = h('p', { class: 'alert', role: 'alert' }, message ?? '');
  problem.hidden = !message;

  async function tryCredential(credential: Credential, form: HTMLFormElement): Promise<void> {
    problem.hidden = true;
    const submit = form.querySelector('button')!;
    submit.disabled = true;
    try {
      await call(ROUTES.locateKeys, { query: { limit: 1 }, credential });
    } catch (err) {
      // Refused credentials stop here; a signed-in user without the right to list keys may still use the rest.
      if (!(err instanceof ApiError) || err.status === 401 || err.status === 0) {
        problem.textContent = `Sign-in failed: ${(err as Error).message}.`;
        problem.hidden = false;
        submit.disabled = false;
        problem.focus();
        return;
      }
    }
    saveCredential(credential);
    done();
  }

  const token = h('textarea', { name: 'token', rows: 4, required: true, autocomplete: 'off', spellcheck: 'false' });
  const tokenForm = h(
    'form',
    { class: 'card', 'aria-labelledby': 'bearer-heading' },
    h('h2', { id: 'bearer-heading' }, 'Bearer token'),
    h(
      'p',
      {},
      'Paste a token from your identity provider, or one the service minted ' +
        'for you. It is kept in this tab only (sessionStorage) and sent in the ' +
        'Authorization header.',
    ),
    field('Token', token),
    h('button', { type: 'submit' }, 'Sign in with token'),
  );
  tokenForm.addEventListener('submit', (event) => {
    event.preventDefault();
    // A token has no whitespace: a line break picked up while copying would only make the header invalid.
    void tryCredential(
      {
        kind: 'bearer',
        token: token.value
          .trim()
          .replace(/^Bearer\s+/i, '')
          .replace(/\s+/g, ''),
      },
      tokenForm,
    );
  });

  const user = input('user', { required: true });
  const groups = input('groups');
  const devForm = h(
    'form',
    { class: 'card', 'aria-labelledby': 'dev-heading' },
    h('h2', { id: 'dev-heading' }, 'Development header'),
    h('p', {}, 'Only for a server running with auth.kind dev: the console sends your name in the X-Svc-User header.'),
    field('User', user),
    field('Groups', groups, 'comma-separated, optional (X-Svc-Groups)'),
    h('button', { type: 'submit' }, 'Sign in with header'),
  );
  devForm.addEventListener('submit', (event) => {
    event.preventDefault();
    // Header values are printable ASCII (the service's rule for X-Svc-User too); say so before sending.
    if (/[^\x20-\x7e]/.test(user.value + groups.value)) {
      problem.textContent = 'Sign-in failed: user and groups must be printable ASCII characters.';
      problem.hidden = false;
      problem.focus();
      return;
    }
    void tryCredential({ kind: 'dev', user: user.value.trim(), groups: groups.value.trim() }, devForm);
  });

  problem.setAttribute('tabindex', '-1');
  root.append(h('h1', {}, 'Sign in'), problem, h('div', { class: 'columns' }, tokenForm, devForm));
}
