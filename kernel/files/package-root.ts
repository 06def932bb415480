import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding package.json above a module, wherever the server runs from: the sources
 * (app/start.ts -> .) or the build (dist/server/app/start.js -> .), so files beside package.json are
 * found the same way from both.
 */
export function packageRoot(moduleUrl: string): string {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

/** The version in that package.json. */
export function packageVersion(moduleUrl: string): string {
  return (JSON.parse(readFileSync(path.join(packageRoot(moduleUrl), 'package.json'), 'utf8')) as { version: string })
    .version;
}
