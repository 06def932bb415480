import type { Page } from 'playwright-core';
import t from 'tap';
import { launchBrowser } from '../helpers/browser.ts';
import { startTestService } from '../helpers/service.ts';
import { serverMissing } from '../helpers/test-server.ts';

/**
 * The console by keyboard alone, and the structure assistive technology reads: every control named by a
 * label, one main heading per page that takes the focus, buttons that are buttons, on a laptop screen.
 */

/** Controls on the page that nothing names (no <label>, no aria-label, no aria-labelledby). */
const unlabelled = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLInputElement>('input, select, textarea')]
      .filter((el) => !el.labels?.length && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
      .map((el) => el.outerHTML),
  );

/** Elements that react to clicks without being a button or link a keyboard can reach. */
const fakeButtons = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('[onclick], [role="button"]:not(button), div[tabindex], span[tabindex]')].map(
      (el) => el.outerHTML,
    ),
  );

t.test('signed in and used by keyboard alone; every control labelled on every page', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const keyId = await svc.client('alice').key({ name: 'keyboard-key', algorithm: 'EdDSA' }, false);
  const browser = await launchBrowser([svc.url]);
  if (!browser) return serverMissing(t, 'chromium (Debian package) is not installed and could not be');
  t.teardown(() => browser.close());
  const { page } = browser;
  await page.setViewportSize({ width: 1280, height: 720 });

  await page.goto(`${svc.url}/console/`);
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  t.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1', 'the page heading has the focus');
  const focused = () =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      return (el as HTMLInputElement).labels?.[0]?.textContent ?? el.textContent ?? el.tagName;
    });
  // Before the heading, the sections; after it, the bearer token box and its button, then the header form.
  await page.keyboard.press('Shift+Tab');
  t.equal(await focused(), 'Advisor', 'the section links come before the page');
  const order: string[] = [];
  for (let i = 0; i < 4; i++) {
    await page.keyboard.press('Tab');
    order.push(await focused());
  }
  t.same(order, ['Token', 'Sign in with token', 'User', 'Groups'], 'focus moves in reading order');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.type('alice');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();

  for (const [hash, heading] of [
    ['#/keys', 'Keys'],
    [`#/keys/${keyId}`, 'Key keyboard-key'],
    ['#/agents', 'Agents'],
    ['#/access-keys', 'Access keys'],
    ['#/policy', 'Policy'],
    ['#/audit', 'Audit'],
    ['#/advisor', 'Advisor'],
  ]) {
    await page.goto(`${svc.url}/console/${hash}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    t.same(await unlabelled(page), [], `${heading}: every control has a label`);
    t.same(await fakeButtons(page), [], `${heading}: every action is a real button or link`);
    t.equal(await page.locator('h1').count(), 1, `${heading}: one main heading`);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    t.ok(overflow <= 0, `${heading}: no sideways scrolling on a 1280-pixel screen`);
  }

  // An action by keyboard: activate the key with Tab and Enter, sign with Space on the button.
  await page.goto(`${svc.url}/console/#/keys/${keyId}`);
  await page.getByRole('heading', { level: 1, name: 'Key keyboard-key' }).waitFor();
  await page.getByRole('button', { name: 'Activate' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('status').filter({ hasText: 'Activated.' }).waitFor();
  await page.getByLabel('Message (UTF-8 text)', { exact: true }).focus();
  await page.keyboard.type('typed, not clicked');
  await page.keyboard.press('Tab');
  t.equal(
    await page.evaluate(() => document.activeElement?.textContent),
    'Sign',
    'the Sign button follows its message',
  );
  await page.keyboard.press('Space');
  await page
    .getByRole('status')
    .filter({ hasText: /Signed with version 1/ })
    .waitFor();
  t.same(browser.foreign, []);
});
