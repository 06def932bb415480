import { readFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { createServer as createTlsServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { launchBrowser } from '../helpers/browser.ts';
import { startTestService } from '../helpers/service.ts';
import { serverMissing } from '../helpers/test-server.ts';
import { makeTestPki } from '../helpers/tls-certs.ts';

/**
 * The console where it is deployed: on the service's own TLS listener, and behind a proxy that ends TLS
 * (terminatedUpstream), where the browser only ever sees the proxy's origin. And what a hostile key name
 * does to it: nothing.
 */

const pki = makeTestPki();

/** Signs in with the header, then lists the keys: the whole round trip the console makes. */
async function signInAndList(t: Test, origin: string, expectKey: string): Promise<Page | undefined> {
  const browser = await launchBrowser([origin]);
  if (!browser) return serverMissing(t, 'chromium (Debian package) is not installed and could not be');
  t.teardown(() => browser.close());
  const { page } = browser;
  await page.goto(`${origin}/console`);
  t.equal(page.url(), `${origin}/console/#/sign-in`, 'the redirect keeps the scheme and host the browser used');
  await page.getByLabel('User', { exact: true }).fill('alice');
  await page.getByRole('button', { name: 'Sign in with header' }).click();
  await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
  await page.getByRole('link', { name: expectKey }).waitFor();
  t.same(browser.foreign, [], `every request went to ${origin}`);
  return page;
}

t.test("on the service's own TLS listener", async (t) => {
  const svc = await startTestService({
    SVC_HTTP_TLS_CERT_FILE: pki.serverCertFile,
    SVC_HTTP_TLS_KEY_FILE: pki.serverKeyFile,
  });
  t.teardown(() => svc.stop());
  const origin = `https://127.0.0.1:${svc.kernel.address!.port}`;
  const created = await fetchJson(`${origin}/v1/keys`, { spec: { name: 'over-tls', algorithm: 'AES' } });
  t.equal(created.spec.name, 'over-tls');
  await signInAndList(t, origin, 'over-tls');
});

t.test('behind a proxy that terminates TLS', async (t) => {
  const svc = await startTestService({ SVC_HTTP_TLS_TERMINATED_UPSTREAM: 'true' });
  t.teardown(() => svc.stop());
  await svc.client('alice').post('/v1/keys', { spec: { name: 'behind-proxy', algorithm: 'AES' } });
  const proxy = await terminatingProxy(svc.url);
  t.teardown(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
  const origin = `https://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  await signInAndList(t, origin, 'behind-proxy');
});

t.test('a key named like markup is shown as text and loads nothing', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const hostile = '<img src="https://attacker.example/steal.png" onerror="document.title=\'owned\'">';
  await svc.client('mallory').post('/v1/keys', { spec: { name: hostile, algorithm: 'AES' } });
  const page = await signInAndList(t, svc.url, hostile);
  if (!page) return;
  t.equal(await page.locator('main img').count(), 0, 'no image element was made from the name');
  t.not(await page.title(), 'owned', 'no handler ran');
  await page.getByRole('link', { name: hostile }).click();
  await page.getByRole('heading', { level: 1, name: `Key ${hostile}` }).waitFor();
  t.equal(await page.locator('main img').count(), 0);
});

/** An HTTPS server with the test PKI's certificate that forwards every request to the service over plain HTTP. */
async function terminatingProxy(upstream: string): Promise<Server> {
  const target = new URL(upstream);
  const server = createTlsServer(
    { cert: readFileSync(pki.serverCertFile), key: readFileSync(pki.serverKeyFile) },
    (req, res) => {
      const forwarded = request(
        {
          host: target.hostname,
          port: target.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, 'x-forwarded-proto': 'https' },
        },
        (answer: IncomingMessage) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on('error', () => res.writeHead(502).end());
      req.pipe(forwarded);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** A JSON POST as alice to a TLS origin the test's CA vouches for. */
async function fetchJson(url: string, body: unknown): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: 'POST',
        ca: readFileSync(pki.caFile),
        headers: { 'X-Svc-User': 'alice', 'Content-Type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
