import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { launchBrowser, type TestBrowser } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { serverMissing } from '../helpers/test-server.ts';

/**
 * A browser on the console, signed in as alice with the dev header, showing the key list; undefined (the test failed or
 * skipped) without chromium.
 */
async function signedInAsAlice(t: Test, svc: TestService): Promise<TestBrowser | undefined> {
  const browser = await launchBrowser([svc.url]);
  if (!browser) return serverMissing(t, 'chromium (Debian package) is not installed and could not be');
  t.teardown(() => browser.close());
  const { page } = browser;
  await page.goto(`${svc.url}/console/`);
  await page.getByLabel('User', { exact: true }).fill('alice');
  await page.getByRole('button', { name: 'Sign in with header' }).click();
  await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
  return browser;
}

/** The key list a page at a time, forwards and back, with the filters kept from page to page. */
t.test('keys are listed a page at a time with the filters kept', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const alice = svc.client('alice');
  for (const name of ['pay-1', 'pay-2', 'pay-3', 'pay-4', 'pay-5', 'other'])
    await alice.key({ name, algorithm: 'AES' }, false);

  const browser = await signedInAsAlice(t, svc);
  if (!browser) return;
  const { page } = browser;

  const names = async (p: Page, caption: string) => {
    const table = p.getByRole('table', { name: caption });
    await table.waitFor();
    return table.locator('tbody tr td:first-child').allTextContents();
  };
  await page.getByLabel('Name', { exact: true }).fill('pay-*');
  await page.getByLabel('Per page', { exact: true }).fill('2');
  await page.getByRole('button', { name: 'Search' }).click();
  const first = await names(page, 'Keys, page 1');
  await page.getByRole('button', { name: 'Next page' }).click();
  const second = await names(page, 'Keys, page 2');
  await page.getByRole('button', { name: 'Next page' }).click();
  const third = await names(page, 'Keys, page 3');
  t.same([first.length, second.length, third.length], [2, 2, 1]);
  // Keys made within one millisecond may come in either order, so the set is what is compared.
  t.same(
    [...first, ...second, ...third].sort(),
    ['pay-1', 'pay-2', 'pay-3', 'pay-4', 'pay-5'],
    'every matching key once, and no other',
  );
  t.equal(await page.getByRole('button', { name: 'Next page' }).count(), 0, 'the last page offers no next one');
  await page.getByRole('button', { name: 'Previous page' }).click();
  t.same(await names(page, 'Keys, page 2'), second, 'back to the page before');
  t.same(browser.foreign, []);
});

t.test(
  "a key address that is not valid percent-encoding still shows the key page, with the service's answer",
  async (t) => {
    const svc = await startTestService();
    t.teardown(() => svc.stop());
    const browser = await signedInAsAlice(t, svc);
    if (!browser) return;
    const { page } = browser;
    for (const typed of ['%', '%E0%A4%A']) {
      await page.goto(`${svc.url}/console/#/keys/${typed}`);
      await page.getByRole('heading', { level: 1, name: 'Key' }).waitFor();
      const status = page.getByRole('status').first();
      await status.filter({ hasText: /\w+: / }).waitFor();
      t.match(
        await status.textContent(),
        /^(KeyNotFound|InvalidField|BadRequest): /,
        `#/keys/${typed}: the page says what the service answered`,
      );
    }
  },
);
