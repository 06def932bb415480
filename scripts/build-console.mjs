// Builds the web console into dist/console/ (served at /console/): the TypeScript modules under
// console/src bundled into one script, plus the page, style sheet and icon copied as they are.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'dist/console');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [path.join(root, 'console/src/main.ts')],
  outfile: path.join(out, 'console.js'),
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: ['chrome109', 'firefox115', 'safari16'],
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
});
for (const file of ['index.html', 'console.css', 'icon.svg'])
  copyFileSync(path.join(root, 'console/static', file), path.join(out, file));
