import { call } from '../api.ts';
import { base64ToText, textToBase64 } from '../base64.ts';
import { field, h } from '../dom.ts';
import { ROUTES } from '../routes.ts';
import { act, statusLine, submitButton, type StatusLine } from '../status.ts';
import type { DecryptAnswer, EncryptAnswer, ManagedKey, SignAnswer, VerifyAnswer } from '../types.ts';

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

/**
 * An encryption context typed as `key=value`, one pair per line (the CLI's `--context k=v` form), as
 * the API's `context` object. Blank lines are skipped; a line without `=`, an empty key or a key given
 * twice is refused here, before anything is sent: a context that differs by one pair would only fail
 * later, at decryption, with no hint why.
 */
export function parseContext(text: string, what: string): Record<string, string> {
  const pairs = new Map<string, string>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const at = line.indexOf('=');
    const name = at < 0 ? '' : line.slice(0, at).trim();
    if (!name) throw new Error(`${what}, line ${i + 1}: write key=value`);
    if (pairs.has(name)) throw new Error(`${what} names ${name} twice`);
    pairs.set(name, line.slice(at + 1).trim());
  });
  // fromEntries makes own properties even of names like __proto__.
  return Object.fromEntries(pairs);
}

function contextField(label: string, hint: string): { el: HTMLElement; input: HTMLTextAreaElement } {
  const input = h('textarea', { name: 'context', rows: 2, placeholder: 'tenant=acme' });
  return { el: field(label, input, hint), input };
}

/**
 * Encrypt some text and decrypt an envelope, as an application would with this key: each only when the key's state
 * allows it.
 */
function encryptCards(id: string, produce: boolean, consume: boolean): HTMLElement[] {
  const cards: HTMLElement[] = [];
  if (produce) {
    const plaintext = h('textarea', { name: 'plaintext', rows: 3 });
    const context = contextField(
      'Encryption context',
      'optional: key=value, one pair per line; decryption needs the same pairs',
    );
    const ciphertextOut = h('textarea', { name: 'ciphertextOut', rows: 3, readonly: true });
    const status = statusLine();
    cards.push(
      onSubmit(
        form(
          'Encrypt',
          field('Plaintext (UTF-8 text)', plaintext),
          context.el,
          h('button', { type: 'submit' }, 'Encrypt'),
          field('Encrypted envelope (base64)', ciphertextOut),
          status.el,
        ),
        status,
        async () => {
          const ctx = parseContext(context.input.value, 'the encryption context');
          const { body } = await call<EncryptAnswer>(ROUTES.encrypt, {
            params: { id },
            body: { plaintextBase64: textToBase64(plaintext.value), context: ctx },
          });
          ciphertextOut.value = body.ciphertextBase64;
          const pairs = Object.keys(ctx).length;
          status.ok(
            `Encrypted with version ${body.keyVersion} (${body.algorithm})${pairs ? `, bound to ${pairs} context pair${pairs === 1 ? '' : 's'}` : ''}.`,
          );
        },
      ),
    );
  }
  if (consume) {
    const ciphertext = h('textarea', { name: 'ciphertext', rows: 3, required: true });
    const context = contextField(
      'Decryption context',
      'the key=value pairs the envelope was encrypted with, one per line',
    );
    const plaintextOut = h('textarea', { name: 'plaintextOut', rows: 3, readonly: true });
    const status = statusLine();
    cards.push(
      onSubmit(
        form(
          'Decrypt',
          field('Envelope to decrypt (base64)', ciphertext),
          context.el,
          h('button', { type: 'submit' }, 'Decrypt'),
          field('Decrypted plaintext', plaintextOut),
          status.el,
        ),
        status,
        async () => {
          plaintextOut.value = '';
          const ctx = parseContext(context.input.value, 'the decryption context');
          const { body } = await call<DecryptAnswer>(ROUTES.decrypt, {
            params: { id },
            body: { ciphertextBase64: ciphertext.value.trim(), context: ctx },
          });
          const text = base64ToText(body.plaintextBase64);
          plaintextOut.value = text ?? body.plaintextBase64;
          status.ok(
            `Decrypted with version ${body.keyVersion}${text === undefined ? ' (binary: shown as base64)' : ''}.`,
          );
        },
      ),
    );
  }
  return cards;
}

/** Sign some text and verify a signature over it: each only when the key's state allows it. */
function signCards(id: string, produce: boolean, consume: boolean): HTMLElement[] {
  const cards: HTMLElement[] = [];
  if (produce) {
    const message = h('textarea', { name: 'message', rows: 3 });
    const signatureOut = h('textarea', { name: 'signatureOut', rows: 3, readonly: true });
    const status = statusLine();
    cards.push(
      onSubmit(
        form(
          'Sign',
          field('Message (UTF-8 text)', message),
          h('button', { type: 'submit' }, 'Sign'),
          field('Signature (base64)', signatureOut),
          status.el,
        ),
        status,
        async () => {
          const { body } = await call<SignAnswer>(ROUTES.sign, {
            params: { id },
            body: { messageBase64: textToBase64(message.value) },
          });
          signatureOut.value = body.signatureBase64;
          status.ok(`Signed with version ${body.keyVersion} (${body.algorithm}).`);
        },
      ),
    );
  }
  if (consume) {
    const message = h('textarea', { name: 'verifyMessage', rows: 3 });
    const signature = h('textarea', { name: 'signature', rows: 3, required: true });
    const status = statusLine();
    cards.push(
      onSubmit(
        form(
          'Verify',
          field('Message to verify (UTF-8 text)', message),
          field('Signature to verify (base64)', signature),
          h('button', { type: 'submit' }, 'Verify'),
          status.el,
        ),
        status,
        async () => {
          const { body } = await call<VerifyAnswer>(ROUTES.verify, {
            params: { id },
            body: { messageBase64: textToBase64(message.value), signatureBase64: signature.value.trim() },
          });
          if (body.valid)
            status.ok(`Valid signature (${body.algorithm}${body.keyVersion ? `, version ${body.keyVersion}` : ''}).`);
          else status.fail(new Error('the signature does not match this message and key'));
        },
      ),
    );
  }
  return cards;
}

/** The cards that use the key (AES: encrypt and decrypt; the others: sign and verify), or none. */
export function useCards(key: ManagedKey, produce: boolean, consume: boolean): HTMLElement | null {
  const cards =
    key.spec.algorithm === 'AES' ? encryptCards(key.id, produce, consume) : signCards(key.id, produce, consume);
  return cards.length ? h('div', { class: 'columns' }, ...cards) : null;
}
