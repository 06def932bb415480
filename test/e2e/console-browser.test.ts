import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { launchBrowser, type TestBrowser } from '../helpers/browser.ts';
import { ApiClient } from '../helpers/client.ts';
import { llmStandIn } from '../helpers/llm-stand-in.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { serverMissing } from '../helpers/test-server.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

/**
 * The web console in Debian's chromium: a user signs in, and everything the test does, it does by
 * clicking and typing, as a user would. The service then shows, through its own API, that the actions
 * happened and were made with the user's credential. The browser may reach the service and nothing else.
 */

const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
const statusSays = (page: Page, text: string | RegExp) =>
  page.getByRole('status').filter({ hasText: text }).first().waitFor();
const label = (page: Page, text: string) => page.getByLabel(text, { exact: true });
const click = (page: Page, name: string) => page.getByRole('button', { name, exact: true }).click();

interface Session extends TestBrowser {
  /** Asserts what the whole visit must keep to; called at the end of each test. */
  stayedHome(): void;
}

async function browse(t: Test, svc: TestService): Promise<Session | undefined> {
  const browser = await launchBrowser([svc.url]);
  if (!browser) {
    serverMissing(t, 'chromium (Debian package) is not installed and could not be');
    return undefined;
  }
  t.teardown(() => browser.close());
  const cspViolations: string[] = [];
  browser.page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  t.comment(`screenshots: ${browser.artifacts}`);
  return Object.assign(browser, {
    stayedHome: () => {
      t.same(cspViolations, [], 'the page broke none of its own content security policy');
      t.same(browser.foreign, [], "no request left the service's origin");
    },
  });
}

/** Creates a key from the Keys page and lands on its page. */
async function createKey(page: Page, name: string, algorithm: string, sizeOrCurve?: string): Promise<string> {
  await page.goto(`${new URL(page.url()).origin}/console/#/keys`);
  await heading(page, 'Keys');
  await label(page, 'Key name').fill(name);
  await label(page, 'Key algorithm').selectOption(algorithm);
  if (sizeOrCurve) await label(page, 'Size or curve').selectOption(sizeOrCurve);
  await click(page, 'Create key');
  await heading(page, `Key ${name}`);
  return decodeURIComponent(new URL(page.url()).hash.replace('#/keys/', ''));
}

async function lifecycle(page: Page, button: string, done: string | RegExp): Promise<void> {
  await click(page, button);
  await statusSays(page, done);
}

t.test('signed in with the development header: keys, agents, audit and advisor', async (t) => {
  const llm = await llmStandIn(() => ({
    status: 200,
    body: { choices: [{ message: { content: 'The agent signed once and was revoked.' } }] },
  }));
  t.teardown(() => llm.close());
  const svc = await startTestService({
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
    SVC_ADVISOR_LLM_PROVIDER: 'openai',
    SVC_ADVISOR_LLM_API_KEY: 'sk-stand-in',
    SVC_ADVISOR_LLM_BASE_URL: llm.url,
  });
  t.teardown(() => svc.stop());
  const browser = await browse(t, svc);
  if (!browser) return;
  const { page } = browser;
  const alice = svc.client('alice');

  await page.goto(`${svc.url}/console/`);
  await heading(page, 'Sign in');
  await browser.screenshot('console-sign-in');
  await label(page, 'User').fill('alice');
  await click(page, 'Sign in with header');
  await heading(page, 'Keys');
  t.match(await page.locator('#who').textContent(), /Signed in as alice/);
  t.notMatch(page.url(), /alice/, 'the credential is not in the URL');
  t.match(await page.evaluate(() => JSON.stringify(sessionStorage)), /alice/, "it is in the tab's sessionStorage");

  // An AES key: activate, encrypt, decrypt, rotate.
  const aes = await createKey(page, 'console-aes', 'AES');
  t.equal((await alice.get(`/v1/keys/${aes}`)).body.state, 'PreActive');
  await lifecycle(page, 'Activate', 'Activated.');
  t.equal((await alice.get(`/v1/keys/${aes}`)).body.state, 'Active', 'the click activated the key');
  await label(page, 'Plaintext (UTF-8 text)').fill('hello from the console: grüße');
  await click(page, 'Encrypt');
  await statusSays(page, /Encrypted with version 1/);
  const envelope = await label(page, 'Encrypted envelope (base64)').inputValue();
  const decrypted = await alice.post(`/v1/keys/${aes}/decrypt`, { ciphertextBase64: envelope });
  t.equal(
    Buffer.from(decrypted.body.plaintextBase64, 'base64').toString('utf8'),
    'hello from the console: grüße',
    'the API decrypts what the console encrypted',
  );
  await label(page, 'Envelope to decrypt (base64)').fill(envelope);
  await click(page, 'Decrypt');
  await statusSays(page, /Decrypted with version 1/);
  t.equal(await label(page, 'Decrypted plaintext').inputValue(), 'hello from the console: grüße');
  await lifecycle(page, 'Rotate', 'Rotated: version 2 is current.');
  await browser.screenshot('console-key');

  // An EC key: sign, verify, public key, then revoke, compromise and destroy.
  const ec = await createKey(page, 'console-ec', 'EC', 'P-384');
  await lifecycle(page, 'Activate', 'Activated.');
  await label(page, 'Message (UTF-8 text)').fill('pay 10 to bob');
  await click(page, 'Sign');
  await statusSays(page, /Signed with version 1 \(EcdsaSha384\)/);
  const signature = await label(page, 'Signature (base64)').inputValue();
  const checked = await alice.post(`/v1/keys/${ec}/verify`, {
    messageBase64: Buffer.from('pay 10 to bob').toString('base64'),
    signatureBase64: signature,
  });
  t.equal(checked.body.valid, true, "the API verifies the console's signature");
  await label(page, 'Message to verify (UTF-8 text)').fill('pay 10 to bob');
  await label(page, 'Signature to verify (base64)').fill(signature);
  await click(page, 'Verify');
  await statusSays(page, 'Valid signature');
  await label(page, 'Message to verify (UTF-8 text)').fill('pay 1000 to bob');
  await click(page, 'Verify');
  await page.getByText('The signature does not match this message and key.').waitFor();
  await click(page, 'Show public key');
  await statusSays(page, /Version 1, EC P-384/);
  t.equal(
    (await page.getByLabel('Public key (PEM)').textContent())?.trim(),
    (await alice.get(`/v1/keys/${ec}/public-key`)).body.publicKeyPem.trim(),
  );
  await label(page, 'Revocation reason').fill('moved to a new key');
  await lifecycle(page, 'Revoke', /^Revoked/);
  t.match((await alice.get(`/v1/keys/${ec}`)).body, { state: 'Deactivated', reason: 'moved to a new key' });
  await label(page, 'Compromise reason').fill('laptop stolen');
  await lifecycle(page, 'Mark compromised', /^Marked compromised/);
  t.equal((await alice.get(`/v1/keys/${ec}`)).body.state, 'Compromised');
  await label(page, 'Days before destruction').fill('0');
  await click(page, 'Destroy');
  await page.getByText('Tick the box to confirm destruction first.').waitFor();
  t.equal(
    (await alice.get(`/v1/keys/${ec}`)).body.state,
    'Compromised',
    'nothing is destroyed without the confirmation',
  );
  await label(page, 'I understand destruction erases the material for good').check();
  await lifecycle(page, 'Destroy', 'Destroyed.');
  t.equal((await alice.get(`/v1/keys/${ec}`)).body.state, 'Destroyed');
  await page.locator('dl.facts dt:text-is("State") + dd:text-is("Destroyed")').waitFor();

  // The list, filtered by a glob and by state.
  await page.goto(`${svc.url}/console/#/keys`);
  await heading(page, 'Keys');
  await label(page, 'Name').fill('console-*');
  await label(page, 'State').selectOption('Active');
  await click(page, 'Search');
  await statusSays(page, '1 key on this page');
  const rows = page.locator('table tbody tr');
  t.equal(await rows.count(), 1);
  t.match(await rows.first().textContent(), /console-aes/);
  await browser.screenshot('console-keys');

  // Agents: issue (the token shown once), then revoke.
  await page.getByRole('link', { name: 'Agents' }).click();
  await heading(page, 'Agents');
  await label(page, 'Label (what the agent is for)').fill('console signer');
  await label(page, 'Sign').check();
  await label(page, 'Get').check();
  await label(page, 'Lifetime in seconds').fill('600');
  await click(page, 'Issue token');
  await statusSays(page, /Agent agent-[0-9a-f-]+ issued/);
  const token = page.locator('#issued-token');
  const jwt = await token.inputValue();
  t.match(jwt, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/, 'the token is shown');
  await browser.screenshot('console-agents');
  t.notMatch(
    await page.evaluate(() => JSON.stringify(sessionStorage) + JSON.stringify(localStorage)),
    jwt.split('.')[2]!,
    'the agent token is not stored by the console',
  );
  await click(page, 'I have copied it: hide the token');
  t.equal(await token.count(), 0, 'the token is gone from the page');
  const listed = (await alice.get('/v1/agents')).body.agents;
  t.equal(listed.length, 1);
  t.match(listed[0], { purpose: 'console signer', parent: 'alice', scopes: ['Get', 'Sign'], revoked: false });
  await page.getByRole('button', { name: `Revoke agent ${listed[0].agentId} (console signer)` }).click();
  await statusSays(page, `Agent ${listed[0].agentId} revoked`);
  t.equal((await alice.get('/v1/agents')).body.agents[0].revoked, true, 'the click revoked the agent');
  await page.getByRole('cell', { name: /^revoked / }).waitFor();

  // Audit: filtered by operation, a page at a time, and verified.
  await page.getByRole('link', { name: 'Audit' }).click();
  await heading(page, 'Audit');
  await statusSays(page, /records?/);
  await label(page, 'Operation').selectOption('Encrypt');
  await click(page, 'Filter');
  await statusSays(page, '1 record.');
  t.match(
    await page.locator('table tbody tr').first().textContent(),
    new RegExp(`alice \\(Human\\)Encrypt${aes}Success`),
    "the encryption is audited as alice's",
  );
  await label(page, 'Operation').selectOption('');
  await label(page, 'Per page').fill('3');
  await click(page, 'Filter');
  await statusSays(page, '3 records; older ones on the next page.');
  const newest = await page.locator('table tbody tr').first().textContent();
  await click(page, 'Older records');
  await page.getByRole('table', { name: 'Audit records, page 2, newest first' }).waitFor();
  t.not(await page.locator('table tbody tr').first().textContent(), newest, 'the next page holds older records');
  await click(page, 'Newer records');
  await page.getByRole('table', { name: 'Audit records, page 1, newest first' }).waitFor();
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await statusSays(page, /The chain is intact: \d+ records checked/);
  await browser.screenshot('console-audit');

  // Advisor: a scan, then the revoked agent explained with the model's narration.
  await page.getByRole('link', { name: 'Advisor' }).click();
  await heading(page, 'Advisor');
  await label(page, 'Idle after days').fill('0');
  await click(page, 'Run scan');
  await statusSays(page, /Scanned \d+ audit records/);
  await page.getByRole('table', { name: 'Idle keys' }).getByRole('link', { name: aes }).waitFor();
  await label(page, 'Agent id').fill(listed[0].agentId);
  await page.getByRole('button', { name: 'Explain', exact: true }).click();
  await statusSays(page, `Explained ${listed[0].agentId}`);
  await page.getByText('The agent signed once and was revoked.').waitFor();
  await page.getByRole('heading', { name: 'Narration (openai)' }).waitFor();
  await browser.screenshot('console-advisor');

  // Every call above was the user's own; the only other rows are the service's own responses (a
  // detector saw the burst of clicks), which no browser can make.
  const trail = (await alice.get('/v1/audit?limit=1000')).body.records as Array<{
    principal: { subject: string };
    context: Record<string, string>;
  }>;
  t.same(
    [...new Set(trail.filter((r) => r.context.door !== 'internal').map((r) => r.principal.subject))],
    ['alice'],
    "every audited call was made with alice's credential",
  );
  t.ok(trail.filter((r) => r.context.door === 'internal').every((r) => r.principal.subject === 'svc-system'));

  await click(page, 'Sign out');
  await heading(page, 'Sign in');
  t.equal(await page.evaluate(() => sessionStorage.length), 0, 'signing out forgets the credential');
  browser.stayedHome();
});

t.test(
  'signed in with a bearer token (hmac): use a key, issue and revoke an agent, and an expired token',
  async (t) => {
    const svc = await startTestService({
      SVC_AUTH_KIND: 'hmac',
      SVC_AUTH_HMAC_SECRET: TEST_SECRET,
      SVC_POLICY_KIND: 'role-based',
      SVC_POLICY_ROLE_BINDINGS: JSON.stringify({
        'kms-admins': [
          'Create',
          'Get',
          'Locate',
          'Activate',
          'Sign',
          'Verify',
          'Encrypt',
          'Decrypt',
          'Rotate',
          'Revoke',
          'Query',
          'Compromise',
          'Destroy',
        ],
      }),
    });
    t.teardown(() => svc.stop());
    const browser = await browse(t, svc);
    if (!browser) return;
    const { page } = browser;
    const token = await mintToken({ sub: 'carol', svc_groups: ['kms-admins'] }, { ttlSeconds: 3600 });
    const carol = new ApiClient(svc.url, { Authorization: `Bearer ${token}` });

    await page.goto(`${svc.url}/console/`);
    await heading(page, 'Sign in');
    await label(page, 'Token').fill(
      await mintToken({ sub: 'carol' }, { secret: 'another-secret-another-secret-another-secret' }),
    );
    await click(page, 'Sign in with token');
    await page
      .getByRole('alert')
      .filter({ hasText: /Sign-in failed: .*token signature does not verify/ })
      .waitFor();
    t.equal(await page.evaluate(() => sessionStorage.length), 0, 'a refused token is not kept');
    await label(page, 'Token').fill(token);
    await click(page, 'Sign in with token');
    await heading(page, 'Keys');
    t.match(await page.locator('#who').textContent(), /Signed in as carol \(bearer token\)/);
    t.notMatch(page.url(), new RegExp(token.slice(-20)), 'the token is not in the URL');

    const ed = await createKey(page, 'carol-ed', 'EdDSA');
    await lifecycle(page, 'Activate', 'Activated.');
    await label(page, 'Message (UTF-8 text)').fill('release 1.2.3');
    await click(page, 'Sign');
    await statusSays(page, /Signed with version 1 \(Ed25519\)/);
    const signature = await label(page, 'Signature (base64)').inputValue();
    t.equal(
      (
        await carol.post(`/v1/keys/${ed}/verify`, {
          messageBase64: Buffer.from('release 1.2.3').toString('base64'),
          signatureBase64: signature,
        })
      ).body.valid,
      true,
    );
    const audited = (await carol.get(`/v1/audit?key=${ed}&op=Sign`)).body.records[0];
    t.match(audited.principal, { subject: 'carol', kind: 'Human' }, "the signature was made with carol's own token");

    await page.getByRole('link', { name: 'Agents' }).click();
    await heading(page, 'Agents');
    await label(page, 'Label (what the agent is for)').fill('release bot');
    await label(page, 'Sign').check();
    await click(page, 'Issue token');
    await statusSays(page, /issued/);
    const agentToken = await page.locator('#issued-token').inputValue();
    const agent = new ApiClient(svc.url, { Authorization: `Bearer ${agentToken}` });
    const message = { messageBase64: Buffer.from('nightly').toString('base64') };
    t.equal((await agent.post(`/v1/keys/${ed}/sign`, message)).status, 200, 'the token the console showed works');
    const agentId = (await carol.get('/v1/agents')).body.agents[0].agentId;
    await page.getByRole('button', { name: `Revoke agent ${agentId} (release bot)` }).click();
    await statusSays(page, `Agent ${agentId} revoked`);
    const refused = await agent.post(`/v1/keys/${ed}/sign`, message);
    t.equal(refused.status, 401, 'the revoked agent is refused at its next call');

    // The token expires while the tab is open: the next page says so and offers to sign in again.
    const expired = await mintToken(
      { sub: 'carol', svc_groups: ['kms-admins'] },
      { iat: Math.floor(Date.now() / 1000) - 7200, ttlSeconds: 60 },
    );
    await page.evaluate((jwt) => {
      const key = Object.keys(sessionStorage)[0]!;
      sessionStorage.setItem(key, JSON.stringify({ kind: 'bearer', token: jwt }));
    }, expired);
    await page.getByRole('link', { name: 'Audit' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The service no longer accepts your credential' });
    await alert.waitFor();
    t.match(await alert.textContent(), /token has expired.*Sign in again/);
    await heading(page, 'Sign in');
    await browser.screenshot('console-expired');
    t.equal(await page.evaluate(() => sessionStorage.length), 0, 'the refused token is forgotten');
    await label(page, 'Token').fill(token);
    await click(page, 'Sign in with token');
    await heading(page, 'Audit');
    t.match(page.url(), /#\/audit$/, 'signing in again returns to the page the user was on');
    browser.stayedHome();
  },
);
