import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every repository path the text names (`docs/config.md`, `app/main.ts`, `dist/server/app/main.js`). */
export function namedPaths(text: string): string[] {
  return [...new Set(text.match(/(?<![\w/.-])(?:[\w.-]+\/)+[\w.-]+\.(?:md|ts|js|mjs|cjs|json|ya?ml)\b/g) ?? [])];
}

/**
 * A built file under dist/ exists once the package is built (`npm ci` builds it); what must exist in the
 * repository is its source: dist/server/<path>.js is built from <path>.ts.
 */
function sourceOf(named: string): string {
  const built = /^dist\/server\/(.+)\.js$/.exec(named);
  return built ? `${built[1]}.ts` : named;
}

t.test('the path finder sees the forms a usage text names files in', async (t) => {
  t.same(
    namedPaths(
      'settings (docs/config.md); node --import tsx app/main.ts or node dist/server/app/main.js; see docs/auth.md.',
    ),
    ['docs/config.md', 'app/main.ts', 'dist/server/app/main.js', 'docs/auth.md'],
  );
  t.same(namedPaths('http.host, SVC_* and --ttl 8h name no file'), []);
});

t.test('every file `npm start -- --help` names exists', async (t) => {
  const help = await new Promise<string>((resolve, reject) =>
    execFile(
      'npm',
      ['start', '--silent', '--', '--help'],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' } },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    ),
  );
  const named = namedPaths(help);
  t.ok(named.includes('docs/config.md'), 'the help points at the configuration reference');
  for (const file of named)
    t.ok(
      existsSync(path.join(ROOT, sourceOf(file))),
      `${file} exists${sourceOf(file) === file ? '' : ` (built from ${sourceOf(file)})`}`,
    );
});
