import type { Page } from 'playwright-core';
import t from 'tap';
import { launchBrowser } from '../helpers/browser.ts';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { serverMissing } from '../helpers/test-server.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/**
 * The policy page in Debian's chromium: the version in force, a new version saved from the editor with
 * the ETag of the one it was made from, a save refused when another change came first, and the history
 * from the audit trail. Its controls are labelled and it fits a laptop screen, as every page's.
 */

const ADMINS = ['Create', 'Get', 'Locate', 'Query', 'Administer'];
const label = (page: Page, text: string) => page.getByLabel(text, { exact: true });
const click = (page: Page, name: string) => page.getByRole('button', { name, exact: true }).click();
const statusSays = (page: Page, text: string | RegExp) =>
  page.getByRole('status').filter({ hasText: text }).first().waitFor();
const factOf = (page: Page, term: string) => page.locator(`dl.facts dt:text-is("${term}") + dd`).first();
const historyVersions = (page: Page) =>
  page.locator('section[aria-labelledby="history-heading"] tbody tr td:first-child').allTextContents();

t.test('read, change with the ETag, refused when stale, and the history of versions', async (t) => {
  const svc = await startTestService({
    SVC_AUTH_KIND: 'hmac',
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_ROLE_BINDINGS: JSON.stringify({ admins: ADMINS }),
  });
  t.teardown(() => svc.stop());
  const token = await mintToken({ sub: 'alice', svc_groups: ['admins'] }, { ttlSeconds: 3600 });
  const alice = new ApiClient(svc.url, { Authorization: `Bearer ${token}` });
  const browser = await launchBrowser([svc.url]);
  if (!browser) return serverMissing(t, 'chromium (Debian package) is not installed and could not be');
  t.teardown(() => browser.close());
  const { page } = browser;
  await page.setViewportSize({ width: 1280, height: 720 });

  await page.goto(`${svc.url}/console/`);
  await label(page, 'Token').fill(token);
  await click(page, 'Sign in with token');
  await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
  await page.getByRole('link', { name: 'Policy' }).click();
  await page.getByRole('heading', { level: 1, name: 'Policy' }).waitFor();
  await page.getByRole('heading', { level: 2, name: 'History' }).waitFor();
  t.equal(await factOf(page, 'Version').textContent(), '1');
  const first = (await alice.get('/v1/policy')).body;
  t.equal(await factOf(page, 'ETag').textContent(), first.etag);
  const editor = label(page, 'Bindings (JSON)');
  t.same(JSON.parse(await editor.inputValue()), { roleBindings: { admins: ADMINS }, subjectBindings: {} });
  await page.waitForFunction(
    () => document.querySelectorAll('section[aria-labelledby="history-heading"] tbody tr').length,
  );
  t.same(await historyVersions(page), ['1'], 'version 1, the configured bindings, from the audit trail');

  // Every control labelled, real buttons only, one main heading, no sideways scrolling.
  t.same(
    await page.evaluate(() =>
      [...document.querySelectorAll<HTMLInputElement>('input, select, textarea')]
        .filter((el) => !el.labels?.length && !el.getAttribute('aria-label'))
        .map((el) => el.outerHTML),
    ),
    [],
  );
  t.equal(await page.locator('[onclick], [role="button"]:not(button), div[tabindex], span[tabindex]').count(), 0);
  t.equal(await page.locator('h1').count(), 1);
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth));

  const readers = { roleBindings: { admins: ADMINS, readers: ['Get'] }, subjectBindings: {} };
  await editor.fill(JSON.stringify(readers));
  await click(page, 'Save as a new version');
  await statusSays(page, 'Saved as version 2: every node applies it within 2 seconds.');
  t.match((await alice.get('/v1/policy')).body, { version: 2, ...readers }, 'the API answers the saved version');
  t.equal(await factOf(page, 'Version').textContent(), '2');
  t.same(await historyVersions(page), ['2', '1'], 'the history shows it once the audit trail has it');
  t.match(
    await page.locator('section[aria-labelledby="history-heading"] tbody tr').first().textContent(),
    /alice \(Human\)\+roleBindings\.readers/,
    'who stored it, and what changed',
  );

  // Another change comes first: the editor's version is stale, and the save is refused.
  const second = (await alice.get('/v1/policy')).body;
  const third = await alice.call(
    'PUT',
    '/v1/policy',
    { ...readers, subjectBindings: { carol: ['Get'] } },
    { 'If-Match': second.etag },
  );
  t.equal(third.status, 200);
  await editor.fill(JSON.stringify({ ...readers, subjectBindings: { dave: ['Get'] } }));
  await click(page, 'Save as a new version');
  await statusSays(page, /^PreconditionFailed: If-Match does not name the latest version \(3/);
  t.same((await alice.get('/v1/policy')).body.subjectBindings, { carol: ['Get'] }, "carol's change stands");
  await click(page, 'Load the latest version');
  await statusSays(page, 'Version 3 loaded; the editor holds it now.');
  t.same(JSON.parse(await editor.inputValue()).subjectBindings, { carol: ['Get'] });
  t.same(await historyVersions(page), ['3', '2', '1'], 'and the history with it');

  await editor.fill('{"roleBindings": {');
  await click(page, 'Save as a new version');
  await statusSays(page, /^The bindings are not JSON: /);
  await editor.fill(JSON.stringify({ roleBindings: readers.roleBindings }));
  await click(page, 'Save as a new version');
  await statusSays(page, 'The bindings need subjectBindings, an object (it may be {}).');
  await editor.fill(JSON.stringify({ ...readers, subjectBindings: { erin: ['Fly'] } }));
  await click(page, 'Save as a new version');
  await statusSays(page, /^InvalidField: nothing changed, 1 problem\(s\): .*unknown operation "Fly"/);
  t.equal((await alice.get('/v1/policy')).body.version, 3, 'nothing refused was stored');
  await browser.screenshot('console-policy');
  t.same(browser.foreign, []);
});
