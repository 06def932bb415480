import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { tempDir } from '../helpers/service.ts';
import { debianTool } from '../helpers/debian-tool.ts';
import { serverMissing } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

// deploy/systemd/svc-kms.service: checked by systemd's own tools (systemd-analyze, Debian package
// systemd), then its command line and environment run as the unit would run them, with /opt/svc-kms
// mapped to this checkout and /var/lib/svc-kms to a fresh folder (systemd is not PID 1 where tests run).
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const UNIT = path.join(ROOT, 'deploy/systemd/svc-kms.service');
const run = promisify(execFile);

/** Every `Key=value` of the [Service] section, values of repeated keys in order. */
function serviceSettings(text: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let section = '';
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line || line.startsWith('#')) continue;
    if (line.startsWith('[')) section = line;
    else if (section === '[Service]') {
      const at = line.indexOf('=');
      const key = line.slice(0, at);
      settings.set(key, [...(settings.get(key) ?? []), line.slice(at + 1)]);
    }
  }
  return settings;
}

const settings = serviceSettings(readFileSync(UNIT, 'utf8'));
const one = (key: string) => settings.get(key)?.at(-1);

t.test('systemd-analyze verify accepts the unit and rates its exposure OK', async (t) => {
  if (!debianTool('systemd-analyze', 'systemd'))
    return serverMissing(t, 'systemd-analyze (Debian package systemd) is missing and cannot be installed');
  const verify = await run('systemd-analyze', ['verify', UNIT]).then(
    (r) => ({ code: 0, ...r }),
    (err) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
  t.equal(verify.code, 0, verify.stderr);
  t.equal(verify.stderr.trim(), '', 'no warnings');
  const security = await run('systemd-analyze', ['security', '--offline=yes', UNIT]);
  const score = Number(/Overall exposure level for svc-kms\.service: ([\d.]+)/.exec(security.stdout)?.[1]);
  t.comment(`systemd-analyze security: exposure ${score}`);
  t.ok(score <= 2, `exposure ${score} (0 safest, 10 unprotected) is at most 2`);
});

t.test('the unit holds the hardening operators expect', async (t) => {
  for (const [key, value] of [
    ['NoNewPrivileges', 'yes'],
    ['ProtectSystem', 'strict'],
    ['PrivateTmp', 'yes'],
    ['ProtectHome', 'yes'],
    ['CapabilityBoundingSet', ''],
    ['StateDirectory', 'svc-kms'],
    ['StateDirectoryMode', '0700'],
    ['UMask', '0077'],
    ['KillSignal', 'SIGTERM'],
  ] as const) {
    t.equal(one(key), value, `${key}=${value}`);
  }
  t.notOk(['root', '0'].includes(one('User') ?? 'root'), 'a User other than root');
  t.match(
    one('ExecStart'),
    /^\/usr\/bin\/node .*\/opt\/svc-kms\/dist\/server\/app\/main\.js$/,
    'node runs the built server itself: no npm or shell between systemd and the server',
  );
});

t.test("the unit's command and environment start the service, which stops cleanly on systemd's SIGTERM", async (t) => {
  const state = tempDir();
  const mapped = (text: string) => text.replaceAll('/opt/svc-kms', ROOT).replaceAll('/var/lib/svc-kms', state);
  const [command, ...args] = mapped(one('ExecStart')!).split(/\s+/);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_JOURNAL_KIND: 'rdb-embedded',
    SVC_AUDIT_KIND: 'rdb-embedded',
  };
  for (const assignment of one('Environment')!.split(/\s+/)) {
    const at = assignment.indexOf('=');
    env[assignment.slice(0, at)] = mapped(assignment.slice(at + 1));
  }
  // The machine's own node where the unit names /usr/bin/node, so the test runs on the Node it was started with.
  const child = spawn(command === '/usr/bin/node' ? process.execPath : command!, args, {
    cwd: mapped(one('WorkingDirectory')!),
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  await until(() => /"msg":"listening"/.test(stderr) || child.exitCode !== null, 'the service to listen', 60_000);
  const port = /"msg":"listening".*?"port":(\d+)/.exec(stderr)?.[1];
  t.ok(port, `it listens (${stderr.slice(-500)})`);
  t.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
  t.same(
    readFileSync(path.join(state, 'journal.db')).subarray(0, 15).toString(),
    'SQLite format 3',
    'its journal is in the state directory',
  );
  child.kill(one('KillSignal') as NodeJS.Signals);
  t.equal(await exited, 0, 'SIGTERM: exit 0, so systemd records a clean stop');
});
