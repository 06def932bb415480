import { whenUnauthorized } from './api.ts';
import { clear } from './dom.ts';
import { renderAccessKeys } from './pages/access-keys.ts';
import { renderAdvisor } from './pages/advisor.ts';
import { renderAgents } from './pages/agents.ts';
import { renderAudit } from './pages/audit.ts';
import { renderKey } from './pages/key.ts';
import { renderKeys } from './pages/keys.ts';
import { renderPolicy } from './pages/policy.ts';
import { renderSignIn } from './pages/sign-in.ts';
import { currentCredential, describe, signOut } from './session.ts';

/**
 * The shell: hash routes (#/keys, #/keys/<id>, #/agents, #/access-keys, #/policy, #/audit, #/advisor,
 * #/sign-in), so the server serves one page and a URL never carries anything but where the user is.
 */
type Page = (root: HTMLElement, arg: string | undefined) => void | Promise<void>;
const PAGES = new Map<string, Page>([
  ['keys', (root, id) => (id ? renderKey(root, id) : renderKeys(root))],
  ['agents', renderAgents],
  ['access-keys', renderAccessKeys],
  ['policy', renderPolicy],
  ['audit', renderAudit],
  ['advisor', renderAdvisor],
]);

let signInMessage: string | undefined;
let returnTo = '#/keys';

/** A part of the address as typed when it is not valid percent-encoding (`#/keys/%`), so the page still renders. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function route(): { page: string; arg: string | undefined } {
  const [page = '', arg] = location.hash.replace(/^#\/?/, '').split('/');
  return { page, arg: arg ? decoded(arg) : undefined };
}

function showWho(): void {
  const credential = currentCredential();
  const who = document.getElementById('who')!;
  const out = document.getElementById('sign-out') as HTMLButtonElement;
  who.textContent = credential ? `Signed in as ${describe(credential)}` : 'Not signed in';
  out.hidden = !credential;
}

function markCurrent(page: string): void {
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
    if (link.getAttribute('href') === `#/${page}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

async function render(): Promise<void> {
  const root = document.getElementById('main')!;
  const { page, arg } = route();
  showWho();
  if (page === 'sign-in' || !currentCredential()) {
    if (page !== 'sign-in') {
      returnTo = location.hash || '#/keys';
      history.replaceState(null, '', '#/sign-in');
    }
    markCurrent('sign-in');
    clear(root);
    const message = signInMessage;
    signInMessage = undefined;
    renderSignIn(root, message, () => {
      showWho();
      if (location.hash === returnTo) go();
      else location.hash = returnTo;
    });
    return;
  }
  if (!PAGES.has(page)) {
    history.replaceState(null, '', '#/keys');
    return renderPage(root, 'keys', undefined);
  }
  return renderPage(root, page, arg);
}

async function renderPage(root: HTMLElement, page: string, arg: string | undefined): Promise<void> {
  markCurrent(page);
  clear(root);
  await PAGES.get(page)!(root, arg);
}

/** Moves keyboard focus to the new page's heading, so a screen reader announces where the user is. */
function focusHeading(): void {
  const heading = document.querySelector<HTMLElement>('main h1');
  heading?.setAttribute('tabindex', '-1');
  heading?.focus();
}

function go(): void {
  render()
    .catch((err) => console.error(err))
    .finally(focusHeading);
}

whenUnauthorized((error) => {
  signOut();
  signInMessage = `The service no longer accepts your credential (${error.message}). Sign in again to continue.`;
  if (!location.hash.startsWith('#/sign-in')) returnTo = location.hash || '#/keys';
  if (location.hash === '#/sign-in') go();
  else location.hash = '#/sign-in';
});

document.addEventListener('DOMContentLoaded', () => {
  document.getElementById('sign-out')!.addEventListener('click', () => {
    signOut();
    returnTo = '#/keys';
    location.hash = '#/sign-in';
  });
  window.addEventListener('hashchange', go);
  if (!location.hash) history.replaceState(null, '', '#/keys');
  go();
});
