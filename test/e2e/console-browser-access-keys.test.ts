import type { Page } from 'playwright-core';
import t from 'tap';
import { type AccessKeyCredentials, accessKeyCredentialsPort } from '../../kernel/index.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { serverMissing } from '../helpers/test-server.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/**
 * The Access keys page in Debian's chromium: a key created for oneself shows its secret once (the one the
 * service resolves), a key for a Service, the list, and a delete that the service obeys at once.
 */

const label = (page: Page, text: string) => page.getByLabel(text, { exact: true });
const click = (page: Page, name: string) => page.getByRole('button', { name, exact: true }).click();
const statusSays = (page: Page, text: string | RegExp) =>
  page.getByRole('status').filter({ hasText: text }).first().waitFor();
const listedIds = (page: Page) => page.locator('.results tbody tr td:first-child').allTextContents();

t.test('create with the secret shown once, list, create for a Service, delete', async (t) => {
  const svc = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
  t.teardown(() => svc.stop());
  const token = await mintToken({ sub: 'alice', svc_groups: ['kms-admins'] }, { ttlSeconds: 3600 });
  const alice = new ApiClient(svc.url, { Authorization: `Bearer ${token}` });
  const resolver = svc.kernel.container.resolve<AccessKeyCredentials>(accessKeyCredentialsPort.id);
  const browser = await launchBrowser([svc.url]);
  if (!browser) return serverMissing(t, 'chromium (Debian package) is not installed and could not be');
  t.teardown(() => browser.close());
  const { page } = browser;
  await page.setViewportSize({ width: 1280, height: 720 });

  await page.goto(`${svc.url}/console/`);
  await label(page, 'Token').fill(token);
  await click(page, 'Sign in with token');
  await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
  await page.getByRole('link', { name: 'Access keys' }).click();
  await page.getByRole('heading', { level: 1, name: 'Access keys' }).waitFor();
  await statusSays(page, '0 access keys.');

  await click(page, 'Create access key');
  await page.getByRole('heading', { name: 'Copy the secret access key now: it is shown only once' }).waitFor();
  const id = await label(page, 'Access key id').inputValue();
  t.match(id, /^AKSV[A-Z2-7]{16}$/);
  const secret = await label(page, `Secret access key of ${id}`).inputValue();
  t.equal((await resolver.resolve(id))?.secret, secret, 'the secret shown is the one the service signs with');
  await statusSays(page, `Access key ${id} created for alice (Human).`);
  await page.waitForFunction((want) => document.querySelector('.results code')?.textContent === want, id);
  t.same(await listedIds(page), [id], 'the list shows the new key');
  t.notOk((await page.locator('.results').textContent())?.includes(secret), 'the list never shows the secret');
  const stored = await page.evaluate(() =>
    [localStorage, sessionStorage].flatMap((s) => Object.keys(s).map((k) => s.getItem(k) ?? '')).join('\n'),
  );
  t.notOk(stored.includes(secret), 'the browser stores nothing of the secret');
  await click(page, 'I have copied it: hide the secret');
  t.equal(await page.locator('#created-secret').count(), 0, 'hidden, the secret is gone from the page');

  await label(page, 'For the Service').fill('billing-app');
  await click(page, 'Create access key');
  await statusSays(page, /created for billing-app \(Service\)\./);
  const billing = (await alice.get('/v1/access-keys?principal=billing-app')).body.accessKeys[0].accessKeyId;
  await page.waitForFunction(() => document.querySelectorAll('.results tbody tr').length === 2);
  t.same(await listedIds(page), [id, billing].sort());

  await page.getByRole('button', { name: `Delete access key ${id} (Human alice)` }).click();
  await statusSays(page, `Access key ${id} deleted: requests signed with it are refused from now on.`);
  t.equal(await resolver.resolve(id), undefined, 'the service refuses the deleted key at once');
  t.same(await listedIds(page), [billing]);
  t.same(browser.foreign, [], 'nothing loaded from another host');
});
