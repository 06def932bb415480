import { call } from '../api.ts';
import { base64ToText, textToBase64 } from '../base64.ts';
import { button, facts, field, h, input, time } from '../dom.ts';
import { act, statusLine, submitButton, type StatusLine } from '../status.ts';
import type { DecryptAnswer, DestroyAnswer, EncryptAnswer, ManagedKey, PublicKey, SignAnswer, VerifyAnswer } from '../types.ts';

const path = (id: string, action = '') => `/v1/keys/${encodeURIComponent(id)}${action}`;

function form(heading: string, ...children: Array<Node | null>): HTMLFormElement {
  const id = `h-${heading.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return h('form', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, heading), ...children);
}

function onSubmit(f: HTMLFormElement, status: StatusLine, action: () => Promise<void>): HTMLFormElement {
  f.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(submitButton(f), status, action);
  });
  return f;
}

/** One key: its attributes, its lifecycle actions, its public key, and a place to use it. */
export async function renderKey(root: HTMLElement, id: string): Promise<void> {
  const status = statusLine();
  const details = h('div');
  const heading = h('h1', {}, 'Key');
  root.append(h('p', {}, h('a', { href: '#/keys' }, 'All keys')), heading, status.el, details);

  async function reload(): Promise<ManagedKey> {
    const { body: key } = await call<ManagedKey>('GET', path(id));
    heading.textContent = `Key ${key.spec.name}`;
    details.replaceChildren(
      facts([
        ['Id', h('code', {}, key.id)],
        ['State', key.state],
        ['Algorithm', key.spec.curve ? `${key.spec.algorithm} ${key.spec.curve}` : `${key.spec.algorithm} ${key.spec.sizeBits} bits`],
        ['Current version', String(key.currentVersion)],
        ['Owner', key.owner],
        ['Tenant', key.tenant],
        ['Origin', key.origin],
        ['Exportable', key.spec.exportable ? 'yes' : 'no'],
        ['Rotation policy', key.rotationPolicy],
        ['Created', time(key.createdAt)],
        ['Activated', time(key.activatedAt)],
        ['Rotated', time(key.rotatedAt)],
        ['Revoked', time(key.revokedAt)],
        ['Compromised', time(key.compromisedAt)],
        ['Destruction scheduled for', time(key.destroyAt)],
        ['Destroyed', time(key.destroyedAt)],
        ['Reason', key.reason],
      ]),
    );
    return key;
  }

  let key: ManagedKey;
  try {
    key = await reload();
  } catch (err) {
    status.fail(err);
    return;
  }
  // The user may have moved on while the key was read: leave the page that is there alone.
  if (!heading.isConnected) return;

  const lifecycle = statusLine();
  const run = (label: string, action: () => Promise<string>) => (event: Event) =>
    void act(event.currentTarget as HTMLButtonElement, lifecycle, async () => {
      lifecycle.busy(`${label}...`);
      const done = await action();
      await reload();
      lifecycle.ok(done);
    });

  const revokeReason = input('reason', { maxlength: 1024 });
  const compromiseReason = input('reason', { maxlength: 1024 });
  const waitingDays = input('waitingDays', { type: 'number', min: 0, value: '' });
  const confirmDestroy = h('input', { type: 'checkbox', id: 'confirm-destroy' });
  const lifecycleCard = h(
    'section',
    { class: 'card', 'aria-labelledby': 'lifecycle-heading' },
    h('h2', { id: 'lifecycle-heading' }, 'Lifecycle'),
    h(
      'div',
      { class: 'actions' },
      button('Activate', run('Activating', async () => {
        await call('POST', path(id, '/activate'));
        return 'Activated.';
      })),
      button('Rotate', run('Rotating', async () => {
        const { body } = await call<{ currentVersion: number }>('POST', path(id, '/rotate'), { body: {} });
        return `Rotated: version ${body.currentVersion} is current.`;
      })),
    ),
    h('div', { class: 'row' }, field('Revocation reason', revokeReason), button('Revoke', run('Revoking', async () => {
      await call('POST', path(id, '/revoke'), { body: revokeReason.value.trim() ? { reason: revokeReason.value.trim() } : {} });
      return 'Revoked: the key no longer encrypts or signs; old material still decrypts and verifies.';
    }))),
    h('div', { class: 'row' }, field('Compromise reason', compromiseReason, 'required'), button('Mark compromised', run('Marking compromised', async () => {
      await call('POST', path(id, '/compromise'), { body: { reason: compromiseReason.value.trim() } });
      return 'Marked compromised: every cryptographic call with this key is refused from now on.';
    }))),
    h(
      'div',
      { class: 'row' },
      field('Days before destruction', waitingDays, 'blank: the deployment default; 0: at once'),
      h('div', { class: 'check' }, confirmDestroy, h('label', { for: 'confirm-destroy' }, 'I understand destruction erases the material for good')),
      button('Destroy', run('Destroying', async () => {
        if (!confirmDestroy.checked) throw new Error('tick the box to confirm destruction first');
        const days = waitingDays.value.trim();
        const { status: code, body } = await call<DestroyAnswer>('DELETE', path(id), { query: { waitingDays: days } });
        confirmDestroy.checked = false;
        return code === 202 ? `Destruction scheduled for ${time(body.destroyAt)}.` : 'Destroyed.';
      }), { class: 'danger' }),
    ),
    lifecycle.el,
  );

  const pem = h('pre', { class: 'output', tabindex: 0, 'aria-label': 'Public key (PEM)' });
  pem.hidden = true;
  const publicStatus = statusLine();
  const publicCard =
    key.spec.objectType === 'PrivateKey'
      ? h(
          'section',
          { class: 'card', 'aria-labelledby': 'public-heading' },
          h('h2', { id: 'public-heading' }, 'Public key'),
          button('Show public key', (event) =>
            void act(event.currentTarget as HTMLButtonElement, publicStatus, async () => {
              const { body } = await call<PublicKey>('GET', path(id, '/public-key'));
              pem.textContent = body.publicKeyPem;
              pem.hidden = false;
              publicStatus.ok(`Version ${body.keyVersion}, ${body.algorithm}${body.curve ? ` ${body.curve}` : ''}.`);
            }),
          ),
          pem,
          publicStatus.el,
        )
      : null;

  root.append(...[lifecycleCard, publicCard, key.spec.algorithm === 'AES' ? encryptCards(id) : signCards(id)].filter((el): el is HTMLElement => el !== null));
}

/** Encrypt some text and decrypt an envelope, as an application would with this key. */
function encryptCards(id: string): HTMLElement {
  const plaintext = h('textarea', { name: 'plaintext', rows: 3 });
  const ciphertextOut = h('textarea', { name: 'ciphertextOut', rows: 3, readonly: true });
  const encryptStatus = statusLine();
  const encrypt = onSubmit(
    form('Encrypt', field('Plaintext (UTF-8 text)', plaintext), h('button', { type: 'submit' }, 'Encrypt'), field('Encrypted envelope (base64)', ciphertextOut), encryptStatus.el),
    encryptStatus,
    async () => {
      const { body } = await call<EncryptAnswer>('POST', path(id, '/encrypt'), { body: { plaintextBase64: textToBase64(plaintext.value) } });
      ciphertextOut.value = body.ciphertextBase64;
      encryptStatus.ok(`Encrypted with version ${body.keyVersion} (${body.algorithm}).`);
    },
  );
  const ciphertext = h('textarea', { name: 'ciphertext', rows: 3, required: true });
  const plaintextOut = h('textarea', { name: 'plaintextOut', rows: 3, readonly: true });
  const decryptStatus = statusLine();
  const decrypt = onSubmit(
    form('Decrypt', field('Envelope to decrypt (base64)', ciphertext), h('button', { type: 'submit' }, 'Decrypt'), field('Decrypted plaintext', plaintextOut), decryptStatus.el),
    decryptStatus,
    async () => {
      const { body } = await call<DecryptAnswer>('POST', path(id, '/decrypt'), { body: { ciphertextBase64: ciphertext.value.trim() } });
      const text = base64ToText(body.plaintextBase64);
      plaintextOut.value = text ?? body.plaintextBase64;
      decryptStatus.ok(`Decrypted with version ${body.keyVersion}${text === undefined ? ' (binary: shown as base64)' : ''}.`);
    },
  );
  return h('div', { class: 'columns' }, encrypt, decrypt);
}

/** Sign some text and verify a signature over it. */
function signCards(id: string): HTMLElement {
  const message = h('textarea', { name: 'message', rows: 3 });
  const signatureOut = h('textarea', { name: 'signatureOut', rows: 3, readonly: true });
  const signStatus = statusLine();
  const sign = onSubmit(
    form('Sign', field('Message (UTF-8 text)', message), h('button', { type: 'submit' }, 'Sign'), field('Signature (base64)', signatureOut), signStatus.el),
    signStatus,
    async () => {
      const { body } = await call<SignAnswer>('POST', path(id, '/sign'), { body: { messageBase64: textToBase64(message.value) } });
      signatureOut.value = body.signatureBase64;
      signStatus.ok(`Signed with version ${body.keyVersion} (${body.algorithm}).`);
    },
  );
  const verifyMessage = h('textarea', { name: 'verifyMessage', rows: 3 });
  const signature = h('textarea', { name: 'signature', rows: 3, required: true });
  const verifyStatus = statusLine();
  const verify = onSubmit(
    form('Verify', field('Message to verify (UTF-8 text)', verifyMessage), field('Signature to verify (base64)', signature), h('button', { type: 'submit' }, 'Verify'), verifyStatus.el),
    verifyStatus,
    async () => {
      const { body } = await call<VerifyAnswer>('POST', path(id, '/verify'), { body: { messageBase64: textToBase64(verifyMessage.value), signatureBase64: signature.value.trim() } });
      if (body.valid) verifyStatus.ok(`Valid signature (${body.algorithm}${body.keyVersion ? `, version ${body.keyVersion}` : ''}).`);
      else verifyStatus.fail(new Error('the signature does not match this message and key'));
    },
  );
  return h('div', { class: 'columns' }, sign, verify);
}
