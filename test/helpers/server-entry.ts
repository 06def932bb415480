import path from 'node:path';
import { buildFreshness } from '../../scripts/build-freshness.mjs';

let chosen: string[] | undefined;

/**
 * The node arguments that run the server as its own process, from the repository root: the compiled
 * build (`npm test` builds it first, as `npm start` runs it) while no source changed after it, else the
 * sources through tsx. The build starts in half the CPU time, and tests start hundreds of servers; a
 * test run right after an edit still runs the edited code.
 */
export function serverEntry(): string[] {
  if (chosen) return chosen;
  const freshness = buildFreshness(path.resolve(import.meta.dirname, '../..'));
  chosen = freshness.built && !freshness.changed ? ['dist/server/app/main.js'] : ['--import', 'tsx', 'app/main.ts'];
  return chosen;
}
