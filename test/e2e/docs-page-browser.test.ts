import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { CHROMIUM_ARGS } from '../helpers/browser.ts';
import { startTestService } from '../helpers/service.ts';
import { debianTool } from '../helpers/debian-tool.ts';
import { serverMissing } from '../helpers/test-server.ts';

/**
 * The interactive documentation rendered by a real browser that can reach nothing but the service
 * (background networking off, and the page's own content security policy): Swagger UI draws every
 * operation from the served document, without its Explore bar.
 */
t.test('/docs/ renders the API in a headless browser with no outside host', async (t) => {
  const browser = debianTool('chromium', 'chromium');
  if (!browser) return serverMissing(t, 'chromium (Debian package) is not installed and could not be');
  const svc = await startTestService();
  t.teardown(() => svc.stop());
  const dom = await new Promise<string>((resolve, reject) => {
    execFile(
      browser,
      [
        ...CHROMIUM_ARGS,
        `--user-data-dir=${mkdtempSync(path.join(tmpdir(), 'svc-chromium-'))}`,
        '--virtual-time-budget=10000',
        '--dump-dom',
        `${svc.url}/docs/`,
      ],
      { maxBuffer: 64 * 1024 * 1024, timeout: 90_000 },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
  });
  for (const summary of [
    'Create a key (state PreActive, version 1)',
    'Read the audit trail, newest first (Human only)',
    'Readiness of every probed plugin',
  ]) {
    t.ok(dom.includes(summary), `the page shows "${summary}"`);
  }
  t.notMatch(dom, /class="topbar"|download-url-input/, 'no Explore bar');
});
