// Run by `npm start` first (prestart): the server it starts is the one compiled to dist/server, so a
// missing build stops here with what to do, and a build older than the sources says so instead of
// silently running yesterday's code.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const stamp = path.join(root, 'dist/server/.build-complete'); // written last by scripts/build-server.mjs
if (!existsSync(path.join(root, 'dist/server/app/main.js')) || !existsSync(stamp)) {
  process.stderr.write('svc-kms: the server is not built (dist/server is missing): run npm run build, or npm run dev to run the sources\n');
  process.exit(1);
}
const builtAt = statSync(stamp).mtimeMs;

/** The first TypeScript source under these folders changed after the build, if any. */
function newerSource(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = newerSource(full);
      if (found) return found;
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && statSync(full).mtimeMs > builtAt) return full;
  }
  return undefined;
}
for (const folder of ['app', 'kernel', 'plugins', 'config', 'schemas']) {
  const changed = newerSource(path.join(root, folder));
  if (changed) {
    process.stderr.write(`svc-kms: warning: ${path.relative(root, changed)} changed after the last build; this runs the build (npm run build to rebuild, npm run dev to run the sources)\n`);
    break;
  }
}
