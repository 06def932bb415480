// Bundles the `svc` CLI (and the SDK it uses) into one executable file: dist/svc.mjs, the package's bin.
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const outfile = path.join(root, 'dist/svc.mjs');
await build({
  entryPoints: [path.join(root, 'clients/cli/main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // commander is CommonJS and requires Node built-ins; an ESM bundle needs a real require for those.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __svcCreateRequire } from 'node:module';\nconst require = __svcCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
