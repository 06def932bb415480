import t from 'tap';
import { launchBrowser } from '../helpers/browser.ts';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { serverMissing } from '../helpers/test-server.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/**
 * The console gives nobody more than the API does: a signed-in user whose role allows only reading keys
 * sees each refusal as the API words it, and nothing changes.
 */
t.test('a user the policy allows only to read keys: every other action is refused and nothing changes', async (t) => {
  const svc = await startTestService({
    SVC_AUTH_KIND: 'hmac',
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
    SVC_POLICY_KIND: 'role-based',
    SVC_POLICY_ROLE_BINDINGS: JSON.stringify({
      'kms-admins': ['Create', 'Get', 'Locate', 'Activate', 'Query', 'Destroy'],
      readers: ['Get', 'Locate'],
    }),
  });
  t.teardown(() => svc.stop());
  const admin = new ApiClient(svc.url, {
    Authorization: `Bearer ${await mintToken({ sub: 'ops', svc_groups: ['kms-admins'] }, { ttlSeconds: 3600 })}`,
  });
  const created = await admin.post('/v1/keys', { spec: { name: 'guarded', algorithm: 'AES' } });
  const keyId = created.body.id as string;

  const browser = await launchBrowser([svc.url]);
  if (!browser) return serverMissing(t, 'chromium (Debian package) is not installed and could not be');
  t.teardown(() => browser.close());
  const { page } = browser;
  await page.goto(`${svc.url}/console/`);
  await page
    .getByLabel('Token', { exact: true })
    .fill(await mintToken({ sub: 'rita', svc_groups: ['readers'] }, { ttlSeconds: 3600 }));
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
  await page.getByRole('link', { name: 'guarded' }).click();
  await page.getByRole('heading', { level: 1, name: 'Key guarded' }).waitFor();

  await page.getByRole('button', { name: 'Activate' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /^PermissionDenied: / })
    .first()
    .waitFor();
  await page.getByLabel('I understand destruction erases the material for good').check();
  await page.getByLabel('Days before destruction', { exact: true }).fill('0');
  await page.getByRole('button', { name: 'Destroy' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /^PermissionDenied: / })
    .first()
    .waitFor();
  t.equal((await admin.get(`/v1/keys/${keyId}`)).body.state, 'PreActive', 'the key is as it was');

  await page.getByRole('link', { name: 'Audit' }).click();
  await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
  await page
    .getByRole('status')
    .filter({ hasText: /^PermissionDenied: / })
    .first()
    .waitFor();
  t.equal(await page.locator('table').count(), 0, 'no audit record is shown');
  await page.getByRole('link', { name: 'Agents' }).click();
  await page.getByLabel('Label (what the agent is for)', { exact: true }).fill('sneaky');
  await page.getByLabel('Destroy', { exact: true }).check();
  await page.getByRole('button', { name: 'Issue token' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /^PermissionDenied: / })
    .first()
    .waitFor();
  t.equal(await page.locator('#issued-token').count(), 0, 'no token was issued');

  const refusals = (await admin.get('/v1/audit?actor=rita&limit=100')).body.records as Array<{
    operation: string;
    outcome: string;
  }>;
  t.same(
    [...new Set(refusals.filter((r) => r.outcome !== 'Success').map((r) => r.operation))].sort(),
    ['Activate', 'Create', 'Destroy', 'Query'],
    "each refusal is audited under the user's name",
  );
  t.same(browser.foreign, []);
});
