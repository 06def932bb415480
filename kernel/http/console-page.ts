import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Context } from 'koa';
import { packageRoot } from '../files/package-root.ts';
import type { Logger } from '../ports/logger.ts';

/**
 * The console is static files the build step (`npm run build:console`, run by `npm ci`) writes to
 * dist/console/: one page, one script, one style sheet. Everything it loads comes from this server and
 * everything it does goes through the public API with the user's own credential, so the policy can
 * forbid every other host, every inline script or style, and being framed.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every console answer, the missing-assets page and 404s included. */
const CONSOLE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  // Asset names carry no content hash: a browser asks again after every upgrade.
  'Cache-Control': 'no-cache',
};

// A Map, not an object literal: the name comes from the request path, and `constructor` or `__proto__`
// looked up on an object would find Object.prototype's members instead of nothing. Only these names are
// ever read from disk, so no request path reaches the file system.
const ASSET_TYPES = new Map<string, string>([
  ['console.js', 'application/javascript; charset=utf-8'],
  ['console.css', 'text/css; charset=utf-8'],
  ['icon.svg', 'image/svg+xml'],
]);
const PAGE_FILE = 'index.html';

const MISSING_PAGE = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>svc-kms console: not built</title></head>
<body>
<main>
<h1>The console is not built</h1>
<p>This server has no console assets in dist/console/. Run <code>npm run build:console</code>
(<code>npm ci</code> runs it) and restart the service. The API itself is not affected.</p>
</main>
</body>
</html>
`;

export const CONSOLE_ASSETS_DIR = path.join(packageRoot(import.meta.url), 'dist', 'console');

interface ConsoleFiles {
  page: Buffer;
  assets: Map<string, Buffer>;
}

/** The built console, read once at boot; undefined when a file is missing (the log says which). */
export function loadConsole(logger: Logger, dir = CONSOLE_ASSETS_DIR): ConsoleFiles | undefined {
  const missing = [PAGE_FILE, ...ASSET_TYPES.keys()].filter((name) => !existsSync(path.join(dir, name)));
  if (missing.length) {
    logger.warn('web console assets are missing: /console/ answers 503 until `npm run build:console` has run', {
      dir,
      missing: missing.join(', '),
    });
    return undefined;
  }
  return {
    page: readFileSync(path.join(dir, PAGE_FILE)),
    assets: new Map([...ASSET_TYPES.keys()].map((name) => [name, readFileSync(path.join(dir, name))])),
  };
}

function withConsoleHeaders(ctx: Context): void {
  for (const [name, value] of Object.entries(CONSOLE_HEADERS)) ctx.set(name, value);
}

/**
 * Plain-text 404 for a path under /console/: a browser that mistyped a URL gets a page it can show, not
 * the API's JSON error body.
 */
function notFound(ctx: Context): void {
  ctx.status = 404;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = 'Not found. The console starts at /console/.\n';
}

export function serveConsolePage(ctx: Context, files: ConsoleFiles | undefined): void {
  withConsoleHeaders(ctx);
  if (!files) {
    ctx.status = 503;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = MISSING_PAGE;
    return;
  }
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = files.page;
}

export function serveConsoleAsset(ctx: Context, files: ConsoleFiles | undefined, name: string): void {
  withConsoleHeaders(ctx);
  const type = ASSET_TYPES.get(name);
  const body = files?.assets.get(name);
  if (!type || !body) {
    notFound(ctx);
    return;
  }
  ctx.type = type;
  ctx.body = body;
}

/** /console without its slash: the page's links are written for /console/. */
export function redirectToConsole(ctx: Context): void {
  withConsoleHeaders(ctx);
  ctx.redirect('/console/');
}

/** Any other path under /console/. */
export function serveConsoleNotFound(ctx: Context): void {
  withConsoleHeaders(ctx);
  notFound(ctx);
}
