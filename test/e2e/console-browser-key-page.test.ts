import type { Page } from 'playwright-core';
import t from 'tap';
import { launchBrowser, type TestBrowser } from '../helpers/browser.ts';
import { startTestService } from '../helpers/service.ts';
import { serverMissing } from '../helpers/test-server.ts';

/**
 * A key's page in Debian's chromium, as a user sees it: only the actions the key's state allows are on
 * offer (a button the service can only refuse with IllegalOperation is a trap), and encryption takes an
 * encryption context, which decryption then needs.
 */

const svc = await startTestService();
t.teardown(() => svc.stop());
const alice = svc.client('alice');
const browser: TestBrowser | undefined = await launchBrowser([svc.url]);
if (browser) t.teardown(() => browser.close());

const LIFECYCLE = 'section[aria-labelledby="lifecycle-heading"]';

/** Opens a key's page and waits until its controls are drawn. */
async function open(page: Page, id: string, name: string): Promise<void> {
  await page.goto(`${svc.url}/console/#/keys/${id}`);
  await page.getByRole('heading', { level: 1, name: `Key ${name}`, exact: true }).waitFor();
  await page.locator(LIFECYCLE).waitFor();
}

/** What the page offers: the lifecycle buttons, the cards that use the key, and the public key. */
async function offered(page: Page): Promise<{ lifecycle: string[]; use: string[]; publicKey: boolean }> {
  return {
    lifecycle: await page.locator(`${LIFECYCLE} button:visible`).allTextContents(),
    use: await page.locator('form.card h2:visible').allTextContents(),
    publicKey: await page.getByRole('button', { name: 'Show public key' }).isVisible(),
  };
}

async function key(
  name: string,
  algorithm: 'AES' | 'EC',
  ...steps: Array<[string, string, unknown?]>
): Promise<string> {
  const id = (
    await alice.post('/v1/keys', { spec: { name, algorithm, ...(algorithm === 'EC' ? { curve: 'P-256' } : {}) } })
  ).body.id as string;
  for (const [method, action, body] of steps) {
    const res = await alice.call(method, `/v1/keys/${id}${action}`, body);
    if (res.status >= 300) throw new Error(`${method} ${action}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return id;
}
const ACTIVATE: [string, string] = ['POST', '/activate'];
const REVOKE: [string, string, unknown] = ['POST', '/revoke', {}];
const COMPROMISE: [string, string, unknown] = ['POST', '/compromise', { reason: 'drill' }];

t.test('each state offers only the actions the lifecycle allows from it', async (t) => {
  if (!browser) return serverMissing(t, 'chromium (Debian package) is not installed and could not be');
  const { page } = browser;
  await page.goto(`${svc.url}/console/`);
  await page.getByLabel('User', { exact: true }).fill('alice');
  await page.getByRole('button', { name: 'Sign in with header' }).click();
  await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();

  const cases: Array<[string, string, Awaited<ReturnType<typeof offered>>]> = [
    [
      'pre-active',
      await key('pre-active', 'AES'),
      { lifecycle: ['Activate', 'Mark compromised', 'Destroy'], use: [], publicKey: false },
    ],
    [
      'active',
      await key('active', 'AES', ACTIVATE),
      { lifecycle: ['Rotate', 'Revoke', 'Mark compromised'], use: ['Encrypt', 'Decrypt'], publicKey: false },
    ],
    [
      'deactivated',
      await key('deactivated', 'AES', ACTIVATE, REVOKE),
      { lifecycle: ['Mark compromised', 'Destroy'], use: ['Decrypt'], publicKey: false },
    ],
    [
      'compromised',
      await key('compromised', 'AES', ACTIVATE, COMPROMISE),
      { lifecycle: ['Destroy'], use: [], publicKey: false },
    ],
    [
      'destroyed',
      await key('destroyed', 'EC', ['DELETE', '?waitingDays=0']),
      { lifecycle: [], use: [], publicKey: false },
    ],
    [
      'scheduled',
      await key('scheduled', 'AES', ['DELETE', '?waitingDays=3']),
      { lifecycle: ['Cancel the destruction', 'Mark compromised', 'Destroy now'], use: [], publicKey: false },
    ],
    [
      'ec-active',
      await key('ec-active', 'EC', ACTIVATE),
      { lifecycle: ['Rotate', 'Revoke', 'Mark compromised'], use: ['Sign', 'Verify'], publicKey: true },
    ],
    [
      'ec-deactivated',
      await key('ec-deactivated', 'EC', ACTIVATE, REVOKE),
      { lifecycle: ['Mark compromised', 'Destroy'], use: ['Verify'], publicKey: true },
    ],
  ];
  for (const [name, id, expected] of cases) {
    await open(page, id, name);
    t.same(await offered(page), expected, `${name}: ${expected.lifecycle.join(', ') || 'nothing to do'}`);
  }
  await open(page, cases[4]![1], 'destroyed');
  await page.getByText('Destroyed: its material is erased; only its record can be read.').waitFor();

  // The offer follows the key as it changes: revoking an Active key takes rotate, revoke and encrypt away.
  await open(page, cases[1]![1], 'active');
  await page.getByRole('button', { name: 'Revoke', exact: true }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /^Revoked/ })
    .waitFor();
  t.same(await offered(page), cases[2]![2], 'once revoked, the page offers what a Deactivated key allows');
  t.equal(
    await page.evaluate(() => document.activeElement?.textContent),
    'Lifecycle',
    'the keyboard stays in the lifecycle card',
  );

  // A scheduled destruction taken back: the key is PreActive again, with its actions.
  await open(page, cases[5]![1], 'scheduled');
  await page.getByRole('button', { name: 'Cancel the destruction' }).click();
  await page.getByRole('status').filter({ hasText: 'Destruction cancelled' }).waitFor();
  t.same(await offered(page), cases[0]![2]);
  t.notOk((await alice.get(`/v1/keys/${cases[5]![1]}`)).body.destroyAt, 'the service no longer plans to destroy it');
  await browser.screenshot('console-key-states');
  t.same(browser.foreign, []);
});

t.test('encrypt binds an encryption context typed as key=value lines; decrypt needs the same pairs', async (t) => {
  if (!browser) return serverMissing(t, 'chromium (Debian package) is not installed and could not be');
  const { page } = browser;
  const id = await key('with-context', 'AES', ACTIVATE);
  await open(page, id, 'with-context');
  await page.getByLabel('Plaintext (UTF-8 text)', { exact: true }).fill('invoice 42');
  await page.getByLabel('Encryption context', { exact: true }).fill('tenant=acme\npurpose = monthly billing\n');
  await page.getByRole('button', { name: 'Encrypt', exact: true }).click();
  await page
    .getByRole('status')
    .filter({ hasText: 'Encrypted with version 1 (AesGcm256), bound to 2 context pairs.' })
    .waitFor();
  const envelope = await page.getByLabel('Encrypted envelope (base64)', { exact: true }).inputValue();

  const context = { tenant: 'acme', purpose: 'monthly billing' };
  const decrypted = await alice.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: envelope, context });
  t.equal(
    Buffer.from(decrypted.body.plaintextBase64, 'base64').toString(),
    'invoice 42',
    'the API decrypts it with the pairs typed in the console',
  );
  t.match(
    (await alice.post(`/v1/keys/${id}/decrypt`, { ciphertextBase64: envelope })).body,
    { error: 'DecryptionFailed' },
    'and not without them',
  );

  const decryptStatus = page
    .getByRole('status')
    .filter({ hasText: /^(Decrypted|DecryptionFailed|The decryption context)/ });
  await page.getByLabel('Envelope to decrypt (base64)', { exact: true }).fill(envelope);
  await page.getByRole('button', { name: 'Decrypt', exact: true }).click();
  await decryptStatus.filter({ hasText: /^DecryptionFailed: / }).waitFor();
  t.equal(
    await page.getByLabel('Decrypted plaintext', { exact: true }).inputValue(),
    '',
    'without the context nothing is shown',
  );

  await page.getByLabel('Decryption context', { exact: true }).fill('tenant');
  await page.getByRole('button', { name: 'Decrypt', exact: true }).click();
  await decryptStatus.filter({ hasText: 'The decryption context, line 1: write key=value.' }).waitFor();
  await page.getByLabel('Decryption context', { exact: true }).fill('tenant=acme\ntenant=other');
  await page.getByRole('button', { name: 'Decrypt', exact: true }).click();
  await decryptStatus.filter({ hasText: 'The decryption context names tenant twice.' }).waitFor();

  // The same pairs in another order: the context is a set of pairs, not a text.
  await page.getByLabel('Decryption context', { exact: true }).fill('purpose=monthly billing\ntenant=acme');
  await page.getByRole('button', { name: 'Decrypt', exact: true }).click();
  await decryptStatus.filter({ hasText: 'Decrypted with version 1.' }).waitFor();
  t.equal(await page.getByLabel('Decrypted plaintext', { exact: true }).inputValue(), 'invoice 42');

  const decrypts = (await alice.get(`/v1/audit?key=${id}&op=Decrypt&limit=100`)).body.records as Array<{
    outcome: string;
    context: Record<string, string>;
  }>;
  t.same(
    decrypts.map((r) => r.outcome).filter((o) => o !== 'Success' && o !== 'DecryptionFailed'),
    [],
    'a badly typed context never reached the service',
  );
  t.equal(decrypts.filter((r) => r.context.door === 'http').length, 4, 'two API decrypts and two from the console');
  await browser.screenshot('console-key-context');
  t.same(browser.foreign, []);
});
