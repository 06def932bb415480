import { call } from '../api.ts';
import { button, facts, field, h, input, time } from '../dom.ts';
import { allowedActions, type KeyAction } from '../key-actions.ts';
import { ROUTES } from '../routes.ts';
import { currentCredential, principalKind } from '../session.ts';
import { act, type StatusLine, statusLine } from '../status.ts';
import type { DestroyAnswer, ManagedKey, PublicKey } from '../types.ts';
import { aliasControls, pauseControls, tagControls } from './key-attributes.ts';
import { useCards } from './key-use.ts';

function keyFacts(key: ManagedKey): HTMLElement {
  return facts([
    ['Id', h('code', {}, key.id)],
    ['State', key.state],
    [
      'Algorithm',
      key.spec.curve ? `${key.spec.algorithm} ${key.spec.curve}` : `${key.spec.algorithm} ${key.spec.sizeBits} bits`,
    ],
    ['Current version', String(key.currentVersion)],
    ['Owner', key.owner],
    ['Tenant', key.tenant],
    ['Origin', key.origin],
    ['Exportable', key.spec.exportable ? 'yes' : 'no'],
    ['Enabled', key.enabled ? 'yes' : 'no: disabled'],
    ['Rotation policy', key.rotationPolicy],
    ['Created', time(key.createdAt)],
    ['Activated', time(key.activatedAt)],
    ['Rotated', time(key.rotatedAt)],
    ['Revoked', time(key.revokedAt)],
    ['Compromised', time(key.compromisedAt)],
    ['Destruction scheduled for', time(key.destroyAt)],
    ['Destroyed', time(key.destroyedAt)],
    ['Reason', key.reason],
  ]);
}

/** An action's click handler: runs it with its button disabled, then reloads the key and reports on the card. */
export type Run = (label: string, action: () => Promise<string>) => (event: Event) => void;

/** A card of the key page: its heading, its controls (drawn again at each reload) and its status line. */
function card(
  id: string,
  title: string,
): { el: HTMLElement; heading: HTMLElement; body: HTMLElement; status: StatusLine } {
  const heading = h('h2', { id, tabindex: -1 }, title);
  const body = h('div');
  const status = statusLine();
  return {
    el: h('section', { class: 'card', 'aria-labelledby': id }, heading, body, status.el),
    heading,
    body,
    status,
  };
}

/** The lifecycle controls the key's state allows; the others are not shown at all. */
function lifecycleControls(key: ManagedKey, allowed: Set<KeyAction>, run: Run): HTMLElement[] {
  const id = { id: key.id };
  const out: HTMLElement[] = [];
  const buttons = h('div', { class: 'actions' });
  if (allowed.has('activate'))
    buttons.append(
      button(
        'Activate',
        run('Activating', async () => {
          await call(ROUTES.activateKey, { params: id });
          return 'Activated.';
        }),
      ),
    );
  if (allowed.has('rotate'))
    buttons.append(
      button(
        'Rotate',
        run('Rotating', async () => {
          const { body } = await call<{ currentVersion: number }>(ROUTES.rotateKey, { params: id, body: {} });
          return `Rotated: version ${body.currentVersion} is current.`;
        }),
      ),
    );
  if (allowed.has('cancelDestroy'))
    buttons.append(
      button(
        'Cancel the destruction',
        run('Cancelling the destruction', async () => {
          await call(ROUTES.cancelDestroy, { params: id });
          return 'Destruction cancelled: the key is back in its state.';
        }),
      ),
    );
  if (buttons.childElementCount) out.push(buttons);
  if (allowed.has('revoke')) {
    const reason = input('reason', { maxlength: 1024 });
    out.push(
      h(
        'div',
        { class: 'row' },
        field('Revocation reason', reason),
        button(
          'Revoke',
          run('Revoking', async () => {
            await call(ROUTES.revokeKey, {
              params: id,
              body: reason.value.trim() ? { reason: reason.value.trim() } : {},
            });
            return 'Revoked: the key no longer encrypts or signs; old material still decrypts and verifies.';
          }),
        ),
      ),
    );
  }
  if (allowed.has('compromise')) {
    const reason = input('reason', { maxlength: 1024 });
    out.push(
      h(
        'div',
        { class: 'row' },
        field('Compromise reason', reason, 'required'),
        button(
          'Mark compromised',
          run('Marking compromised', async () => {
            await call(ROUTES.compromiseKey, { params: id, body: { reason: reason.value.trim() } });
            return 'Marked compromised: every cryptographic call with this key is refused from now on.';
          }),
        ),
      ),
    );
  }
  if (allowed.has('destroy')) {
    const waitingDays = input('waitingDays', { type: 'number', min: 0, value: '' });
    const confirm = h('input', { type: 'checkbox', id: 'confirm-destroy' });
    out.push(
      h(
        'div',
        { class: 'row' },
        key.destroyAt
          ? null
          : field('Days before destruction', waitingDays, 'blank: the deployment default; 0: at once'),
        h(
          'div',
          { class: 'check' },
          confirm,
          h('label', { for: 'confirm-destroy' }, 'I understand destruction erases the material for good'),
        ),
        button(
          key.destroyAt ? 'Destroy now' : 'Destroy',
          run('Destroying', async () => {
            if (!confirm.checked) throw new Error('tick the box to confirm destruction first');
            const { status: code, body } = await call<DestroyAnswer>(ROUTES.destroyKey, {
              params: id,
              query: { waitingDays: key.destroyAt ? '0' : waitingDays.value.trim() },
            });
            return code === 202 ? `Destruction scheduled for ${time(body.destroyAt)}.` : 'Destroyed.';
          }),
          { class: 'danger' },
        ),
      ),
    );
  }
  if (!out.length) {
    out.push(
      h(
        'p',
        {},
        key.state === 'Destroyed'
          ? 'Destroyed: its material is erased; only its record can be read.'
          : `No lifecycle action is open to a ${key.state} key.`,
      ),
    );
  }
  return out;
}

/** One key: its attributes, the lifecycle actions its state allows, its public key, and a place to use it. */
export async function renderKey(root: HTMLElement, id: string): Promise<void> {
  const status = statusLine();
  const details = h('div');
  const heading = h('h1', {}, 'Key');
  root.append(h('p', {}, h('a', { href: '#/keys' }, 'All keys')), heading, status.el, details);

  const lifecycleCard = card('lifecycle-heading', 'Lifecycle');
  const pauseCard = card('pause-heading', 'Pause');
  const namesCard = card('names-heading', 'Aliases and tags');
  const credential = currentCredential();
  const human = credential !== undefined && principalKind(credential) === 'Human';
  const pem = h('pre', { class: 'output', tabindex: 0, 'aria-label': 'Public key (PEM)' });
  const publicStatus = statusLine();
  const publicCard = h(
    'section',
    { class: 'card', 'aria-labelledby': 'public-heading' },
    h('h2', { id: 'public-heading' }, 'Public key'),
    button(
      'Show public key',
      (event) =>
        void act(event.currentTarget as HTMLButtonElement, publicStatus, async () => {
          const { body } = await call<PublicKey>(ROUTES.getPublicKey, { params: { id } });
          pem.textContent = body.publicKeyPem;
          pem.hidden = false;
          publicStatus.ok(`Version ${body.keyVersion}, ${body.algorithm}${body.curve ? ` ${body.curve}` : ''}.`);
        }),
    ),
    pem,
    publicStatus.el,
  );
  const use = h('div');
  // The use cards are built again only when what the state allows changes, so typed text survives a rotation.
  let uses = '';

  const runIn =
    ({ status, heading }: ReturnType<typeof card>): Run =>
    (label, action) =>
    (event) =>
      void act(event.currentTarget as HTMLButtonElement, status, async () => {
        status.busy(`${label}...`);
        const done = await action();
        await reload();
        status.ok(done);
        // The clicked button may be gone (an Activate once the key is Active): keep the keyboard in the card.
        if (!document.activeElement || document.activeElement === document.body) heading.focus();
      });
  const [run, pauseRun, namesRun] = [runIn(lifecycleCard), runIn(pauseCard), runIn(namesCard)];

  async function reload(): Promise<ManagedKey> {
    const { body: key } = await call<ManagedKey>(ROUTES.getKey, { params: { id } });
    heading.textContent = `Key ${key.spec.name}`;
    details.replaceChildren(keyFacts(key));
    const allowed = allowedActions(key);
    lifecycleCard.body.replaceChildren(...lifecycleControls(key, allowed, run));
    pauseCard.body.replaceChildren(...pauseControls(key, allowed, human, pauseRun));
    namesCard.body.replaceChildren(...aliasControls(key, allowed, namesRun), ...tagControls(key, allowed, namesRun));
    // A Destroyed key has nothing to pause, and neither names nor tags to change.
    pauseCard.el.hidden = key.state === 'Destroyed';
    publicCard.hidden = !allowed.has('publicKey');
    if (publicCard.hidden) pem.hidden = true;
    const now = `${allowed.has('produce')}/${allowed.has('consume')}`;
    if (now !== uses) {
      uses = now;
      use.replaceChildren(useCards(key, allowed.has('produce'), allowed.has('consume')) ?? '');
    }
    return key;
  }

  pem.hidden = true;
  try {
    await reload();
  } catch (err) {
    status.fail(err);
    return;
  }
  // The user may have moved on while the key was read: leave the page that is there alone.
  if (!heading.isConnected) return;
  root.append(lifecycleCard.el, pauseCard.el, namesCard.el, publicCard, use);
}
