// Builds the SDK package: dist/index.js (the SDK in one ES module; undici stays a dependency) and
// dist/types/ (declarations, with the request and response schemas they are typed from). Run by
// `npm pack` / `npm publish` (prepack) and `npm run build -w @svc-kms/sdk`.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

const here = import.meta.dirname;
const dist = path.join(here, 'dist');
rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: [path.join(here, 'index.ts')],
  outfile: path.join(dist, 'index.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['undici'],
  logLevel: 'warning',
});
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(here, 'tsconfig.build.json')], { stdio: 'inherit' });
