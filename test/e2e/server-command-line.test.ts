import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { until } from '../helpers/until.ts';

const VERSION = JSON.parse(readFileSync('package.json', 'utf8')).version;
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SVC_HTTP_HOST: '127.0.0.1' };

/** `npm start --silent -- ARGS` as an operator types it; resolves with the exit code and both streams. */
function npmStart(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['start', '--silent', '--', ...args], { env: { ...ENV, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr });
    });
  });
}

t.test('--help prints the usage on stdout, names every flag and command, and exits 0', async (t) => {
  const { code, stdout } = await npmStart(['--help']);
  t.equal(code, 0);
  for (const word of [
    '--config PATH',
    '--print-config',
    '--version',
    '--help',
    'rewrap',
    'replay-dead-letters [--sink NAME]',
  ])
    t.match(stdout, word);
});

t.test('--version prints the version and exits 0', async (t) => {
  const { code, stdout } = await npmStart(['--version']);
  t.equal(code, 0);
  t.equal(stdout, `svc-kms ${VERSION}\n`);
});

t.test(
  'an unknown flag or command, or --config without a path, prints the usage on stderr and exits 2 without binding',
  async (t) => {
    // Hold the port the service would use: binding would fail with EADDRINUSE instead of a usage error.
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    t.teardown(() => blocker.close());
    const port = String((blocker.address() as { port: number }).port);
    for (const [args, why] of [
      [['--verbose'], /Unknown option '--verbose'/],
      [['serve'], /unknown command "serve"/],
      [['--config'], /--config/],
      [['rewrap', 'now'], /unexpected argument "now"/],
    ] as const) {
      const { code, stdout, stderr } = await npmStart([...args], { SVC_HTTP_PORT: port });
      t.equal(code, 2, `${args.join(' ')}: exit 2`);
      t.match(stderr, why);
      t.match(stderr, /Usage: npm start/);
      t.equal(stdout, '', 'nothing on stdout');
      t.notMatch(stderr, /EADDRINUSE|listening/, 'no server was started');
    }
  },
);

t.test('npm start --silent keeps stdout pure JSON: only audit records, one per line', async (t) => {
  const child = spawn('npm', ['start', '--silent'], {
    env: { ...ENV, SVC_HTTP_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  // npm runs the service as its child: signals go to the whole process group.
  const signal = (name: NodeJS.Signals) => process.kill(-child.pid!, name);
  t.teardown(() => {
    if (child.exitCode === null) signal('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  await until(() => /"msg":"listening"/.test(stderr), 'the service to listen');
  const port = /"msg":"listening".*"port":(\d+)/.exec(stderr)![1];
  const api = new ApiClient(`http://127.0.0.1:${port}`, { 'X-Svc-User': 'alice' });
  const id = await api.key({ algorithm: 'AES' });
  await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: 'AAAA' });
  await until(() => stdout.split('\n').filter(Boolean).length >= 3, 'three audit lines');
  const exited = new Promise((resolve) => child.on('exit', resolve));
  signal('SIGTERM');
  await exited;
  const lines = stdout.split('\n').filter(Boolean);
  for (const line of lines) t.doesNotThrow(() => JSON.parse(line), `stdout line is JSON: ${line.slice(0, 80)}`);
  t.match(
    lines.map((l) => JSON.parse(l).op),
    ['Create', 'Activate', 'Encrypt'],
    'the audit records, in order',
  );
  t.match(stderr, /plugins wired/, 'the boot tree and logs go to stderr');
});
