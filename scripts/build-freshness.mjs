// Whether dist/server is a complete build of today's sources: read by `npm start` (check-build.mjs) and by
// the tests, which run the build when it is current and the sources otherwise.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Written last by scripts/build-server.mjs: the build is complete. */
export const BUILD_STAMP = 'dist/server/.build-complete';
/** The folders the server is compiled from (the KMIP door imports the client SDK's key wrapping). */
const SOURCE_FOLDERS = ['app', 'kernel', 'plugins', 'config', 'schemas', 'clients/sdk'];

/** The sources the build is made of: TypeScript, and the gRPC service definitions it copies. */
const isSource = (name) => (name.endsWith('.ts') && !name.endsWith('.test.ts')) || name.endsWith('.proto');

/** The first source under `dir` changed after `builtAt`, if any. */
function newerSource(dir, builtAt) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = newerSource(full, builtAt);
      if (found) return found;
    } else if (isSource(entry.name) && statSync(full).mtimeMs > builtAt) return full;
  }
  return undefined;
}

/** `{ built: false }` without a complete build; else the first source changed after it (`changed`), if any. */
export function buildFreshness(root) {
  const stamp = path.join(root, BUILD_STAMP);
  if (!existsSync(path.join(root, 'dist/server/app/main.js')) || !existsSync(stamp)) return { built: false };
  const builtAt = statSync(stamp).mtimeMs;
  for (const folder of SOURCE_FOLDERS) {
    if (!existsSync(path.join(root, folder))) continue;
    const changed = newerSource(path.join(root, folder), builtAt);
    if (changed) return { built: true, changed: path.relative(root, changed) };
  }
  return { built: true };
}
