import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';

/**
 * The README's quick start as a new user meets it on a machine that reaches the npm registry but not
 * nodejs.org: `npm ci` compiles native addons with node-gyp, which downloads Node's headers unless
 * `npm_config_nodedir` names them. The README's own lines, pasted into a shell, must name a folder that
 * holds this Node's headers, and with that folder an addon must build while every download is refused.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const quickStart = README.slice(README.indexOf('## Quick start'), README.indexOf('## Walk-through'));
const nodedirLines = quickStart.split('\n').filter((line) => line.startsWith('export npm_config_nodedir='));
// The node running this test first on the PATH, as it is for whoever runs npm ci with it.
const PATH = `${path.dirname(process.execPath)}:${process.env.PATH}`;

t.test("the quick start sets npm_config_nodedir, with the Dockerfile's value for the official image", async (t) => {
  t.ok(nodedirLines.length >= 1, 'an export line to paste');
  const docker = /npm_config_nodedir=(\S+)/.exec(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
  t.ok(docker, 'the Dockerfile sets it');
  t.ok(
    quickStart.includes(`\`${docker}\` in the official Node image`),
    `the README names ${docker} for the official image`,
  );
});

/** The value a README line gives, run by bash as pasted. */
async function nodedirOf(line: string): Promise<string> {
  const { stdout } = await run('bash', ['-c', `${line.replace(/\s+#.*$/, '')}\nprintf %s "$npm_config_nodedir"`], {
    env: { PATH },
  });
  return stdout;
}

t.test("the README's lines name this Node's headers, and an addon builds with them and no download", async (t) => {
  const values = await Promise.all(nodedirLines.map(nodedirOf));
  // The fixed /usr line is for NodeSource's package; the other line is for any installation.
  const applicable = values.filter((dir) => dir !== '/usr' || process.execPath === '/usr/bin/node');
  t.ok(applicable.length >= 1, `a line that applies to ${process.execPath}`);
  for (const dir of applicable)
    t.ok(existsSync(path.join(dir, 'include/node/node.h')), `${dir}/include/node holds Node's headers`);

  // The PKCS#11 binding's sources, built as npm ci builds it (npm's own node-gyp, through npm run), with a
  // fresh HOME (no ~/.npmrc, no cached headers) and every HTTP(S) request sent to a closed port.
  const work = mkdtempSync(path.join(tmpdir(), 'svc-native-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const addon = path.join(work, 'addon');
  for (const part of ['binding.gyp', 'src', 'includes'])
    cpSync(path.join(ROOT, 'node_modules/pkcs11js', part), path.join(addon, part), { recursive: true });
  writeFileSync(
    path.join(addon, 'package.json'),
    JSON.stringify({ name: 'addon', version: '1.0.0', private: true, scripts: { build: 'node-gyp rebuild' } }),
  );
  const offline = {
    PATH,
    HOME: work,
    npm_config_update_notifier: 'false',
    npm_config_cache: path.join(work, 'npm-cache'),
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    npm_config_proxy: 'http://127.0.0.1:9',
    npm_config_https_proxy: 'http://127.0.0.1:9',
  };
  const build = (env: Record<string, string>) =>
    run('npm', ['run', 'build'], { cwd: addon, env: { ...offline, ...env }, maxBuffer: 64 * 1024 * 1024 }).then(
      () => 0,
      (err) => ({ code: err.code, output: `${err.stdout}\n${err.stderr}` }),
    );

  const without = await build({});
  t.match(without, { output: /gyp ERR!/ }, 'without npm_config_nodedir node-gyp needs a download, and fails');
  t.comment(
    (without as { output?: string }).output
      ?.split('\n')
      .filter((l) => /gyp (ERR|http|info)/.test(l))
      .slice(0, 6)
      .join('\n') ?? '',
  );
  const withIt = await build({ npm_config_nodedir: applicable[0]! });
  t.equal(
    withIt,
    0,
    withIt === 0
      ? `with npm_config_nodedir=${applicable[0]} it builds offline`
      : (withIt as { output: string }).output.slice(-3000),
  );
  t.ok(existsSync(path.join(addon, 'build/Release/pkcs11.node')), 'the addon is built');
});
