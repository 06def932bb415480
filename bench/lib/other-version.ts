import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './harness.ts';

/**
 * The release bench:compare holds today's tree against when no ref is named and the clone has no release
 * tag (a shallow CI clone, tags not fetched). Tags (`git tag v0.2.0 cc8e79b`) win when present.
 */
const LAST_RELEASE = { version: '0.2.0', commit: 'cc8e79b' };

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/** The ref to compare with: the one named, else the newest release tag (v*), else LAST_RELEASE. */
export function defaultRef(): string {
  try {
    return git('describe', '--tags', '--abbrev=0', '--match', 'v*');
  } catch {
    return LAST_RELEASE.commit;
  }
}

/**
 * A checkout of `ref` ready to run with the same harness: a detached worktree in the temporary folder
 * (kept between runs, one per commit), with node_modules linked to this tree's when the lockfiles match
 * and installed with `npm ci` otherwise (once per worktree). Its TypeScript runs under tsx like today's.
 */
export function checkoutOf(ref: string): { commit: string; dir: string } {
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = path.join(tmpdir(), `svc-compare-${commit.slice(0, 12)}`);
  if (!existsSync(path.join(dir, 'package.json'))) {
    execFileSync('git', ['worktree', 'prune'], { cwd: ROOT });
    execFileSync('git', ['worktree', 'add', '--force', '--detach', dir, commit], { cwd: ROOT, stdio: 'inherit' });
  }
  if (!existsSync(path.join(dir, 'node_modules'))) {
    const sameLock =
      readFileSync(path.join(dir, 'package-lock.json'), 'utf8') ===
      readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8');
    if (sameLock) symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    // --ignore-scripts would skip the native addons' builds: the old version's own install runs as documented.
    else execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  }
  return { commit, dir };
}
