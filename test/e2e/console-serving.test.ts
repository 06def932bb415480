import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Koa from 'koa';
import t, { type Test } from 'tap';
import {
  CONSOLE_ASSETS_DIR,
  CONSOLE_CONTENT_SECURITY_POLICY,
  loadConsole,
  serveConsolePage,
} from '../../kernel/http/console-page.ts';
import { startTestService, tempDir } from '../helpers/service.ts';

/**
 * How the service serves the console, seen by a client that is not a browser: the headers every answer
 * carries, the names it answers, and what a hostile path gets.
 */

const svc = await startTestService();
t.teardown(() => svc.stop());

/** Names every plain object answers to through its prototype. */
const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupGetter__',
];

/** A GET with the path sent exactly as written (fetch would normalise dot segments). */
function rawGet(
  target: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path: target, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

function securityHeaders(t: Test, headers: Record<string, string | string[] | undefined>, what: string): void {
  t.equal(headers['content-security-policy'], CONSOLE_CONTENT_SECURITY_POLICY, `${what}: the console's policy`);
  t.equal(headers['x-content-type-options'], 'nosniff', `${what}: nosniff`);
  t.equal(headers['x-frame-options'], 'DENY', `${what}: never framed`);
  t.equal(headers['referrer-policy'], 'no-referrer', `${what}: no referrer`);
  t.ok(headers['x-request-id'], `${what}: the request id every answer carries`);
  t.notOk(headers['set-cookie'], `${what}: no cookie`);
}

t.test(
  'the page and its assets: no credential needed, strict headers, nothing inline, nothing from elsewhere',
  async (t) => {
    const redirect = await rawGet('/console');
    t.equal(redirect.status, 302);
    t.equal(redirect.headers.location, '/console/');
    securityHeaders(t, redirect.headers, 'redirect');

    const page = await rawGet('/console/');
    t.equal(page.status, 200);
    t.match(page.headers['content-type'], /^text\/html/);
    securityHeaders(t, page.headers, 'page');
    t.match(CONSOLE_CONTENT_SECURITY_POLICY, /default-src 'self'/);
    t.match(CONSOLE_CONTENT_SECURITY_POLICY, /frame-ancestors 'none'/);
    t.notMatch(
      CONSOLE_CONTENT_SECURITY_POLICY,
      /unsafe-inline|unsafe-eval|https?:|\*/,
      'no inline code, no eval, no other host',
    );
    t.notMatch(
      page.body,
      /<script>|<script(?![^>]*\bsrc=)|<style|\sstyle=|\son[a-z]+=/i,
      'no inline script, style or handler',
    );
    const links = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    t.ok(links.length >= 3);
    for (const link of links)
      t.ok(link.startsWith('/console/') || link.startsWith('#/') || link === '/docs/', `${link} is on this server`);

    for (const [name, type] of [
      ['console.js', /^application\/javascript/],
      ['console.css', /^text\/css/],
      ['icon.svg', /^image\/svg\+xml/],
    ] as const) {
      const asset = await rawGet(`/console/assets/${name}`);
      t.equal(asset.status, 200, name);
      t.match(asset.headers['content-type'], type, `${name} content type`);
      securityHeaders(t, asset.headers, name);
      t.equal(asset.body, readFileSync(path.join(CONSOLE_ASSETS_DIR, name), 'utf8'), `${name} is the built file`);
    }
    const script = (await rawGet('/console/assets/console.js')).body;
    t.notMatch(script, /https?:\/\/(?!www\.w3\.org)/, 'the script names no other host');
    t.notMatch(
      script,
      /\binnerHTML\b|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/,
      'the script never parses HTML or code from text',
    );
    t.notMatch(script, /localStorage|document\.cookie/, 'the credential is kept in sessionStorage only');

    // Serving the console is not an API call: no audit row for anyone.
    const audit = await svc.client('alice').get('/v1/audit?limit=1000');
    t.notOk(
      audit.body.records.some((r: { resource: string }) => r.resource.includes('console')),
      'no audit row for page loads',
    );
  },
);

t.test('a hostile path gets a plain 404 with the same headers, and never a file it did not name', async (t) => {
  const packageJson = readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8');
  const hostile = [
    ...PROTOTYPE_NAMES.map((name) => `/console/assets/${name}`),
    '/console/assets/index.html',
    '/console/assets/',
    '/console/assets/..%2F..%2F..%2Fpackage.json',
    '/console/assets/%2e%2e%2fpackage.json',
    '/console/assets/../../package.json',
    '/console/assets/..\\..\\package.json',
    '/console/assets/console.js%00.png',
    '/console/keys',
    '/console/assets/console.js/x',
    '/console/%2e%2e/package.json',
  ];
  for (const target of hostile) {
    const res = await rawGet(target);
    t.not(res.status, 200, `${target} is not answered with a file`);
    t.notOk(res.body.includes('"name": "svc-kms"') || res.body === packageJson, `${target} does not leak package.json`);
    if (res.status === 404 && target.startsWith('/console/') && !target.includes('/../')) {
      t.match(res.headers['content-type'], /^text\/plain/, `${target}: a page a browser can show, not the API's JSON`);
      securityHeaders(t, res.headers, target);
    }
  }
  t.same(
    svc.logs.filter((l) => l.includes('unhandled error')),
    [],
    'nothing reached the unhandled-error path',
  );
  const withQuery = await rawGet('/console/assets/console.js?x=<script>');
  t.equal(withQuery.status, 200, 'a query string changes nothing');
});

t.test('without built assets the console says so, and the API is unaffected', async (t) => {
  const warnings: string[] = [];
  const files = loadConsole(
    { info: () => {}, warn: (msg, f) => warnings.push(`${msg} ${JSON.stringify(f)}`), error: () => {} },
    tempDir('svc-console-empty-'),
  );
  t.equal(files, undefined);
  t.match(
    warnings[0],
    /web console assets are missing.*npm run build:console.*index\.html, console\.js, console\.css, icon\.svg/,
  );
  const app = new Koa();
  app.use((ctx) => serveConsolePage(ctx, files));
  const server = app.listen(0, '127.0.0.1');
  t.teardown(() => server.close());
  await new Promise((resolve) => server.once('listening', resolve));
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/console/`);
  t.equal(res.status, 503);
  t.equal(res.headers.get('content-security-policy'), CONSOLE_CONTENT_SECURITY_POLICY);
  t.match(await res.text(), /The console is not built.*npm run build:console/s);
});
