import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { debianTool } from './debian-tool.ts';

/** The flags every browser test starts Debian's chromium with: nothing of its own reaches the network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Every URL the pages asked for whose origin is not one of the allowed ones (each was refused). */
  foreign: string[];
  /** Where the screenshots go: printed by the test, never committed. */
  artifacts: string;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Debian's chromium (installed when missing) driven by playwright-core, in a fresh profile. A route on
 * every request refuses anything outside `origins` and records it, so a test can assert that a page
 * never reached another host: the request is counted even though it goes nowhere.
 */
export async function launchBrowser(
  origins: string[],
  opts: { artifactsDir?: string } = {},
): Promise<TestBrowser | undefined> {
  const executablePath = debianTool('chromium', 'chromium');
  if (!executablePath) return undefined;
  const profile = mkdtempSync(path.join(tmpdir(), 'svc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
    ignoreHTTPSErrors: true,
    viewport: { width: 1366, height: 768 },
  });
  const allowed = new Set(origins.map((o) => new URL(o).origin));
  const foreign: string[] = [];
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    let origin: string | undefined;
    try {
      origin = new URL(url).origin;
    } catch {
      origin = undefined;
    }
    if (origin && allowed.has(origin)) return route.continue();
    foreign.push(url);
    return route.abort('blockedbyclient');
  });
  // Requests the route does not see (a service worker's, a prefetch) still show up here.
  context.on('request', (request) => {
    const url = request.url();
    if (url.startsWith('data:') || url.startsWith('about:')) return;
    if (!allowed.has(new URL(url).origin) && !foreign.includes(url)) foreign.push(url);
  });
  const artifacts = opts.artifactsDir ?? path.resolve(import.meta.dirname, '../.artifacts');
  mkdirSync(artifacts, { recursive: true });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    foreign,
    artifacts,
    screenshot: async (name) => {
      const file = path.join(artifacts, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
