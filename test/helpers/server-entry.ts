import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const STAMP = path.join(ROOT, 'dist/server/.build-complete'); // written last by scripts/build-server.mjs
const SOURCES = ['app', 'kernel', 'plugins', 'config', 'schemas', 'clients/sdk'];

function newerSource(dir: string, builtAt: number): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() ? newerSource(full, builtAt) : entry.name.endsWith('.ts') && statSync(full).mtimeMs > builtAt) return true;
  }
  return false;
}

let chosen: string[] | undefined;

/**
 * The node arguments that run the server as its own process, from the repository root: the compiled
 * build (`npm test` builds it first, as `npm start` runs it) while it is at least as new as every source,
 * else the sources through tsx. The build starts in half the CPU time, and tests start hundreds of
 * servers; a test run right after an edit still runs the edited code.
 */
export function serverEntry(): string[] {
  if (chosen) return chosen;
  const built = existsSync(STAMP) && !SOURCES.some((folder) => existsSync(path.join(ROOT, folder)) && newerSource(path.join(ROOT, folder), statSync(STAMP).mtimeMs));
  chosen = built ? ['dist/server/app/main.js'] : ['--import', 'tsx', 'app/main.ts'];
  return chosen;
}
