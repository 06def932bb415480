import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';
import { ApiClient, b64 } from '../helpers/client.ts';
import { k8sKmsClient } from '../helpers/k8s-kms-client.ts';
import { tempDir } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';

// What `npm start` runs: the server compiled ahead of time (`npm run build`; npm ci and npm test build it).
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'dist/server/app/main.js');
const VERSION = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
const BASE_ENV = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  SVC_HTTP_HOST: '127.0.0.1',
  SVC_HTTP_PORT: '0',
};

interface Started {
  child: ChildProcess;
  port: number;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts a command in its own process group and waits until the service in it logs that it listens. */
async function startListening(command: string, args: string[], env: Record<string, string>): Promise<Started> {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...BASE_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let err = '';
  child.stdout!.resume();
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  await until(() => gone || /"msg":"listening"/.test(err), 'the service to listen', 60_000);
  if (gone && !/"msg":"listening"/.test(err)) throw new Error(`the service exited before listening:\n${err}`);
  return { child, port: Number(/"msg":"listening".*?"port":(\d+)/.exec(err)![1]), stderr: () => err, exited };
}

/** Whether any process of this group is alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

function cleanupGroup(t: Test, child: ChildProcess): void {
  t.teardown(() => {
    if (groupAlive(child.pid!)) process.kill(-child.pid!, 'SIGKILL');
  });
}

t.before(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build (npm ci and npm test build it)`);
});

t.test(
  'npm start runs the built JavaScript (no TypeScript loader) and serves the walk-through on SQLite',
  async (t) => {
    const dir = tempDir();
    const rx = await webhookReceiver();
    t.teardown(() => rx.close());
    const svc = await startListening('npm', ['start', '--silent'], {
      // Every file in the test's own folder: npm start runs in the checkout, whose data/ is the operator's.
      SVC_JOURNAL_KIND: 'rdb-embedded',
      SVC_AUDIT_KIND: 'rdb-embedded',
      SVC_DATA_DIR: dir,
      SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(dir, 'journal.db')}`,
      SVC_AUDIT_EMBEDDED_PATH: path.join(dir, 'audit.db'),
      SVC_AUDIT_FANOUT_THREAD: 'true',
      SVC_AUDIT_WEBHOOK_ENABLED: 'true',
      SVC_AUDIT_WEBHOOK_URL: rx.url,
      SVC_AUDIT_WEBHOOK_SECRET: 'webhook-secret-of-the-receiver-0123456789',
    });
    cleanupGroup(t, svc.child);
    // npm execs node in place of its shell: the server is npm's only child, and runs dist/server/app/main.js.
    const server = readFileSync(`/proc/${String(childPidOf(svc.child.pid!))}/cmdline`, 'utf8').split('\0');
    t.ok(
      server.includes(MAIN.replace(`${ROOT}/`, '')) || server.includes(MAIN),
      `the server runs the built entry (${server.join(' ')})`,
    );
    t.notOk(
      server.some((arg) => /tsx/.test(arg)),
      'no tsx loader on its command line',
    );

    const api = new ApiClient(`http://127.0.0.1:${svc.port}`, { 'X-Svc-User': 'alice' });
    const id = await api.key({ name: 'built', algorithm: 'AES', sizeBits: 256 });
    const enc = await api.post(`/v1/keys/${id}/encrypt`, { plaintextBase64: b64('from the built server') });
    t.equal(enc.status, 200, 'encrypt');
    const dec = await api.post(`/v1/keys/${id}/decrypt`, {
      ciphertextBase64: (enc.body as { ciphertextBase64: string }).ciphertextBase64,
    });
    t.equal((dec.body as { plaintextBase64: string }).plaintextBase64, b64('from the built server'), 'decrypt');
    // The audit reader is a worker thread started from its own file: it must be found as .js in the built tree.
    const audit = await api.get('/v1/audit?limit=5');
    t.equal(audit.status, 200, 'the audit trail reads (its worker thread starts from dist)');
    t.ok((audit.body as { records: unknown[] }).records.length > 0);
    t.equal((await api.get('/v1/audit/verify?full=true')).body.valid, true, 'the chain verifies');
    // The audit fan-out thread starts from its own file too.
    t.match(svc.stderr(), /"msg":"audit fan-out thread started"/);
    await until(
      () => rx.accepted().some((e) => e.operation === 'Encrypt'),
      'the webhook, sent from the fan-out thread, has the encrypt',
    );
    const docs = await fetch(`http://127.0.0.1:${svc.port}/docs/docs.yaml`);
    t.equal(docs.status, 200, 'the OpenAPI document is served');
    t.match(await docs.text(), /openapi: 3\.1/);
    const page = await fetch(`http://127.0.0.1:${svc.port}/docs/`);
    t.equal(page.status, 200, 'the docs page (swagger-ui assets) is served');
    const consolePage = await fetch(`http://127.0.0.1:${svc.port}/console/`);
    t.equal(consolePage.status, 200, 'the web console (dist/console, found from dist/server) is served');

    process.kill(svc.child.pid!, 'SIGTERM');
    t.equal(await svc.exited, 0, 'SIGTERM to npm: it exits 0');
    await until(() => !groupAlive(svc.child.pid!), 'no process of the group left');
    t.notOk(await portAnswers(svc.port), 'the port is free: no orphaned server');
  },
);

/** The one child of a process (npm's server), from /proc. */
function childPidOf(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  if (children.length !== 1) throw new Error(`expected one child of ${pid}, found ${children.join(',') || 'none'}`);
  return children[0]!;
}

for (const [how, command, args] of [
  ['npm start', 'npm', ['start', '--silent']],
  ['node dist/server/app/main.js', process.execPath, [MAIN]],
] as const) {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    t.test(`${signal} to ${how} stops the server: exit 0, nothing left running, port free`, async (t) => {
      const svc = await startListening(command, [...args], {});
      cleanupGroup(t, svc.child);
      t.ok(await portAnswers(svc.port), 'it listens');
      process.kill(svc.child.pid!, signal);
      t.equal(await svc.exited, 0, 'exit 0');
      await until(() => !groupAlive(svc.child.pid!), 'no process of the group left');
      t.notOk(await portAnswers(svc.port), 'the port is free');
      t.match(
        svc.stderr(),
        new RegExp(`"msg":"shutting down".*"signal":"${signal}"`),
        'the server itself got the signal and shut down',
      );
    });
  }
}

t.test('the built server serves the Kubernetes KMS plugin: its service definition is in the build', async (t) => {
  const dir = tempDir();
  const socket = path.join(dir, 'kms.sock');
  const svc = await startListening(process.execPath, [MAIN], {
    SVC_K8S_KMS_SOCKET: socket,
    SVC_K8S_KMS_KEY_ID: 'alias/kubernetes',
  });
  cleanupGroup(t, svc.child);
  const api = new ApiClient(`http://127.0.0.1:${svc.port}`, { 'X-Svc-User': 'alice' });
  const id = await api.key({ algorithm: 'AES', sizeBits: 256 });
  t.equal((await api.call('PUT', '/v1/aliases/alias%2Fkubernetes', { keyId: id })).status, 200);
  const kms = k8sKmsClient(socket);
  t.same(await kms.status(), { version: 'v2', healthz: 'ok', key_id: `${id}:v1` });
  kms.close();
  process.kill(svc.child.pid!, 'SIGTERM');
  t.equal(await svc.exited, 0);
  t.notOk(existsSync(socket), 'the socket is removed at stop');
});

t.test('--version of the built server reads the package version', async (t) => {
  const out = await new Promise<string>((resolve) => {
    const child = spawn(process.execPath, [MAIN, '--version'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.on('exit', () => resolve(text));
  });
  t.equal(out, `svc-kms ${VERSION}\n`);
});

t.test(
  'the built server loads a JavaScript plugin, and refuses a TypeScript one with a sentence saying what to do',
  async (t) => {
    const dir = tempDir();
    const kernel = pathToFileURL(path.join(ROOT, 'dist/server/kernel/index.js')).href;
    writeFileSync(
      path.join(dir, 'quiet-detector.mjs'),
      `import { definePlugin, detectorPort, KERNEL_API_VERSION } from ${JSON.stringify(kernel)};
export default definePlugin({
  id: 'quiet-detector',
  apiVersion: KERNEL_API_VERSION,
  provides: detectorPort,
  description: 'a compiled third-party detector that never finds anything',
  create: () => ({ name: 'Quiet', observe: () => [] }),
});
`,
    );
    writeFileSync(path.join(dir, 'js.yaml'), 'plugins:\n  - ./quiet-detector.mjs\n');
    const svc = await startListening(process.execPath, [MAIN, '--config', path.join(dir, 'js.yaml')], {});
    cleanupGroup(t, svc.child);
    t.match(svc.stderr(), /detector\s+quiet-detector/, 'the JavaScript plugin is wired');
    process.kill(svc.child.pid!, 'SIGTERM');
    t.equal(await svc.exited, 0);

    writeFileSync(
      path.join(dir, 'ts.yaml'),
      `plugins:\n  - ${path.join(ROOT, 'examples/detector-off-hours/index.ts')}\n`,
    );
    const refused = spawn(process.execPath, [MAIN, '--config', path.join(dir, 'ts.yaml')], {
      cwd: ROOT,
      env: BASE_ENV,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    refused.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => refused.on('exit', resolve));
    t.equal(code, 1, 'boot refused');
    t.match(err, /is TypeScript, and this is the built server \(npm start\).*npm run dev/);
  },
);
