import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Context } from 'koa';

const require = createRequire(import.meta.url);
const SWAGGER_DIST = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/**
 * Everything the page loads comes from this server: Swagger UI's own files from the swagger-ui-dist
 * package, and no font, script or style from another host, so the page works on a network with no way
 * out. The policy header makes the browser refuse anything else.
 */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' " +
  "'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src " +
  "'self'; frame-ancestors 'none'";

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>svc-kms API</title>
  <link rel="stylesheet" href="/docs/assets/ui/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/ui/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/ui/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/ui/svc-docs.js"></script>
</body>
</html>
`;

// BaseLayout is the UI without its top bar (the "Explore" box that loads any URL into the page).
const INIT = `window.ui = SwaggerUIBundle({
  url: '/docs/docs.yaml',
  dom_id: '#swagger-ui',
  layout: 'BaseLayout',
  deepLinking: true,
  supportedSubmitMethods: ['get', 'post', 'delete'],
  validatorUrl: null,
});
`;

// A Map, not an object literal: the name comes from the request path, and `constructor` or `__proto__`
// looked up on an object would find Object.prototype's members instead of nothing.
const ASSETS = new Map<string, { file?: string; text?: string; type: string }>([
  ['swagger-ui.css', { file: 'swagger-ui.css', type: 'text/css' }],
  ['swagger-ui-bundle.js', { file: 'swagger-ui-bundle.js', type: 'application/javascript' }],
  ['favicon-32x32.png', { file: 'favicon-32x32.png', type: 'image/png' }],
  ['svc-docs.js', { text: INIT, type: 'application/javascript' }],
]);

export function serveDocsPage(ctx: Context): void {
  ctx.set('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
  ctx.type = 'text/html';
  ctx.body = PAGE;
}

/** One of the page's assets; an unknown name is left to the 404 answer. */
export function serveDocsAsset(ctx: Context, name: string): void {
  const asset = ASSETS.get(name);
  if (!asset) return;
  ctx.type = asset.type;
  ctx.set('Cache-Control', 'public, max-age=86400');
  ctx.body = asset.text ?? createReadStream(path.join(SWAGGER_DIST, asset.file!));
}
