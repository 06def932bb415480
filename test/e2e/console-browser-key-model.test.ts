import type { Page } from 'playwright-core';
import t from 'tap';
import { OPERATIONS } from '../../kernel/model/operation.ts';
import { launchBrowser, type TestBrowser } from '../helpers/browser.ts';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { serverMissing } from '../helpers/test-server.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/**
 * A key's aliases, tags and pause in Debian's chromium, by clicking and typing: what the page does, the
 * service's API then shows. Enabling a disabled key is offered to a Human only (the service refuses anyone
 * else); a Service signed in sees why there is no button.
 */

const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_POLICY_KIND: 'role-based',
  SVC_POLICY_ROLE_BINDINGS: JSON.stringify({ admins: [...OPERATIONS] }),
});
t.teardown(() => svc.stop());
const token = (claims: Record<string, unknown>) => mintToken(claims, { ttlSeconds: 3600 });
const aliceToken = await token({ sub: 'alice', svc_groups: ['admins'] });
const alice = new ApiClient(svc.url, { Authorization: `Bearer ${aliceToken}` });
const browser: TestBrowser | undefined = await launchBrowser([svc.url]);
if (browser) t.teardown(() => browser.close());

const LIFECYCLE = 'section[aria-labelledby="lifecycle-heading"]';
const PAUSE = 'section[aria-labelledby="pause-heading"]';
const NAMES = 'section[aria-labelledby="names-heading"]';
const label = (page: Page, text: string) => page.getByLabel(text, { exact: true });
const click = (page: Page, name: string) => page.getByRole('button', { name, exact: true }).click();
const statusSays = (page: Page, text: string | RegExp) =>
  page.getByRole('status').filter({ hasText: text }).first().waitFor();

async function signIn(page: Page, jwt: string): Promise<void> {
  await page.goto(`${svc.url}/console/`);
  await page.evaluate(() => sessionStorage.clear());
  await page.goto(`${svc.url}/console/#/sign-in`);
  await label(page, 'Token').fill(jwt);
  await click(page, 'Sign in with token');
  await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
}

async function open(page: Page, id: string, name: string): Promise<void> {
  await page.goto(`${svc.url}/console/#/keys/${id}`);
  await page.getByRole('heading', { level: 1, name: `Key ${name}`, exact: true }).waitFor();
  await page.locator(NAMES).waitFor();
}

t.test('aliases and tags: added, moved, removed from the key page', async (t) => {
  if (!browser) return serverMissing(t, 'chromium (Debian package) is not installed and could not be');
  const { page } = browser;
  await signIn(page, aliceToken);
  const first = await alice.key({ name: 'named-1', algorithm: 'AES' });
  const second = await alice.key({ name: 'named-2', algorithm: 'AES' });

  await open(page, first, 'named-1');
  await page.locator(NAMES).getByText('No alias names this key.').waitFor();
  await label(page, 'New alias').fill('billing');
  await click(page, 'Add alias');
  await statusSays(page, 'Alias alias/billing now names this key.');
  t.equal((await alice.get('/v1/keys/alias%2Fbilling')).body.id, first, 'the API finds the key by its new alias');
  t.same(await page.locator(`${NAMES} ul.names code`).allTextContents(), ['alias/billing']);

  await open(page, second, 'named-2');
  await label(page, 'New alias').fill('alias/billing');
  await click(page, 'Add alias');
  await statusSays(page, /^IllegalOperation: /);
  t.equal((await alice.get('/v1/keys/alias%2Fbilling')).body.id, first, 'refused: an alias is not moved unasked');
  await label(page, 'Move it here if it names another key').check();
  await click(page, 'Add alias');
  await statusSays(page, `Alias alias/billing moved here from key ${first}.`);
  t.equal((await alice.get('/v1/keys/alias%2Fbilling')).body.id, second, 'moved when asked');
  await click(page, 'Remove alias alias/billing');
  await statusSays(page, 'Alias alias/billing deleted; the key is unchanged.');
  t.equal((await alice.get('/v1/keys/alias%2Fbilling')).status, 404);

  await label(page, 'Tag key').fill('team');
  await label(page, 'Tag value').fill('payments team');
  await click(page, 'Set tag');
  await statusSays(page, 'Tag team set.');
  await label(page, 'Tag key').fill('env');
  await click(page, 'Set tag');
  await statusSays(page, 'Tag env set.');
  t.same((await alice.get(`/v1/keys/${second}`)).body.tags, { team: 'payments team', env: '' }, 'an empty value too');
  t.same(
    (await page.locator(`${NAMES} table tbody tr`).allTextContents()).sort(),
    ['envRemove', 'teampayments teamRemove'],
    'each tag a row, its value as text',
  );
  await click(page, 'Remove tag team');
  await statusSays(page, 'Tag team removed.');
  t.same((await alice.get(`/v1/keys/${second}`)).body.tags, { env: '' });
  await label(page, 'Tag key').fill('   ');
  await click(page, 'Set tag');
  await statusSays(page, 'Type the tag key first.');
  t.same(
    await page.locator(`${LIFECYCLE} button:visible`).allTextContents(),
    ['Rotate', 'Revoke', 'Mark compromised'],
    'the lifecycle card offers what it did before',
  );
  await browser.screenshot('console-key-names');
  t.same(browser.foreign, []);
});

t.test('disable with a reason takes the key out of use; a Human enables it, a Service is not offered to', async (t) => {
  if (!browser) return serverMissing(t, 'chromium (Debian package) is not installed and could not be');
  const { page } = browser;
  await signIn(page, aliceToken);
  const id = await alice.key({ name: 'pausable', algorithm: 'AES' });
  await open(page, id, 'pausable');
  await page.locator(PAUSE).getByText('Enabled: the key serves as its state allows.').waitFor();
  t.ok(await page.getByRole('heading', { level: 2, name: 'Encrypt' }).isVisible(), 'an enabled Active key encrypts');
  await label(page, 'Reason for disabling').fill('suspected leak');
  await click(page, 'Disable');
  await statusSays(page, /^Disabled: every cryptographic call/);
  t.match((await alice.get(`/v1/keys/${id}`)).body, { enabled: false, disabledReason: 'suspected leak' });
  await page
    .locator(PAUSE)
    .getByText(/^Disabled since .* \(suspected leak\): every cryptographic call/)
    .waitFor();
  t.equal(await page.locator('form.card h2:visible').count(), 0, 'no encrypt or decrypt card while disabled');
  t.same(await page.locator(`${PAUSE} button:visible`).allTextContents(), ['Enable']);
  await browser.screenshot('console-key-disabled');

  await signIn(page, await token({ sub: 'deployer', svc_kind: 'service', svc_groups: ['admins'] }));
  await open(page, id, 'pausable');
  await page.locator(PAUSE).getByText('Only a Human can enable it again.').waitFor();
  t.same(await page.locator(`${PAUSE} button:visible`).allTextContents(), [], 'no Enable for a Service');

  await signIn(page, aliceToken);
  await open(page, id, 'pausable');
  await click(page, 'Enable');
  await statusSays(page, 'Enabled: the key serves again as its state allows.');
  t.equal((await alice.get(`/v1/keys/${id}`)).body.enabled, true);
  await page.getByRole('heading', { level: 2, name: 'Encrypt' }).waitFor();
  const enables = (await alice.get(`/v1/audit?key=${id}&op=Enable&limit=10`)).body.records;
  t.same(
    enables.map((r: { principal: { subject: string } }) => r.principal.subject),
    ['alice'],
    "enabled once, with the signed-in user's credential",
  );
  t.same(browser.foreign, []);
});
