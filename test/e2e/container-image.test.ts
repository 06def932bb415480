import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { BASE_TAG, buildTestImage, CONTAINER_LIMITS, ensureBaseImage, podman } from '../helpers/podman.ts';
import { debianTool } from '../helpers/debian-tool.ts';
import { freePort, serverMissing } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

// The Dockerfile built and run with podman. No container registry is reachable from the machines this
// runs on, so the base image is built from Debian packages and Node from the npm registry
// (deploy/container/build-base-image.sh, cached by tag after the first run) and handed to the build as
// BASE_IMAGE, the way an operator overrides the official node:24 image. A first run builds the base
// (about 2.5 minutes here) and the image (about 4.5): npm test does both before the suites
// (scripts/test.sh), so this file's own build only reuses cached layers.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
// This checkout's own tag, as deploy/container/build-test-image.sh names it (sha256 of the path and a newline).
const IMAGE = `localhost/svc-kms:test-${createHash('sha256').update(`${ROOT}\n`).digest('hex').slice(0, 12)}`;

/** The first sh block after a heading of the README, as a user would paste it. */
function block(heading: string): string {
  const from = README.indexOf(heading);
  const start = README.indexOf('```sh\n', from) + '```sh\n'.length;
  return README.slice(start, README.indexOf('```', start));
}

function bash(script: string, dir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const out = path.join(dir, 'out');
    const err = path.join(dir, 'err');
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir },
      stdio: ['ignore', openSync(out, 'w'), openSync(err, 'w')],
    });
    child.on('close', (code) =>
      resolve({ code: code ?? 1, stdout: readFileSync(out, 'utf8'), stderr: readFileSync(err, 'utf8') }),
    );
  });
}

t.test(
  'the image builds on a BASE_IMAGE, holds no dev dependencies or tests, ' +
    'runs as non-root, and serves the README walk-through',
  async (t) => {
    for (const [command, debianPackage] of [
      ['podman', 'podman'],
      ['runc', 'runc'],
      ['debootstrap', 'debootstrap'],
    ] as const) {
      if (!debianTool(command, debianPackage))
        return serverMissing(t, `${command} (Debian package ${debianPackage}) is missing and cannot be installed`);
    }
    const base = await ensureBaseImage();
    t.comment(base.built ? `${BASE_TAG} built from Debian packages` : `${BASE_TAG} reused from an earlier run`);
    await buildTestImage(IMAGE);
    const size = Number((await podman(['image', 'inspect', '--format', '{{.Size}}', IMAGE])).stdout.trim());
    const baseSize = Number((await podman(['image', 'inspect', '--format', '{{.Size}}', BASE_TAG])).stdout.trim());
    t.comment(`image ${(size / 1e6).toFixed(0)} MB, of which the base ${(baseSize / 1e6).toFixed(0)} MB`);

    const inImage = async (...command: string[]) =>
      (
        await podman([
          'run',
          '--rm',
          ...CONTAINER_LIMITS,
          '--network=none',
          '--entrypoint',
          command[0]!,
          IMAGE,
          ...command.slice(1),
        ])
      ).stdout.trim();
    t.not(await inImage('id', '-u'), '0', 'the service runs as a non-root user');
    t.same(
      (await inImage('ls', '-A', '/opt/svc-kms')).split('\n').sort(),
      ['deploy', 'dist', 'node_modules', 'package.json', 'scripts'],
      'only the built server, its dependencies and the operator scripts',
    );
    // Dev-only packages as the lockfile marks them (a devDependency that a production package also needs,
    // such as @types/node under koa-body's @types/koa, is not dev-only and stays).
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.entries(lock.packages)
      .filter(([where, entry]) => entry.dev && /^node_modules\/(@[^/]+\/)?[^/]+$/.test(where))
      .map(([where]) => where);
    t.ok(
      devOnly.includes('node_modules/typescript') && devOnly.includes('node_modules/tap'),
      'the lockfile marks typescript and tap dev-only',
    );
    const installed = (await inImage('sh', '-c', 'ls -d node_modules/* node_modules/@*/*')).split('\n');
    t.same(
      installed.filter((where) => devOnly.includes(where)),
      [],
      `none of the ${devOnly.length} dev-only packages is in the image`,
    );
    t.equal(await inImage('sh', '-c', 'find dist -name "*.test.*" | wc -l'), '0', 'no test files');
    t.equal(
      await inImage('find', 'node_modules', '-maxdepth', '2', '-xtype', 'l'),
      '',
      'no link in node_modules points at something the image does not hold',
    );
    t.equal(
      await inImage('sh', '-c', 'stat -c "%U %a" /var/lib/svc-kms'),
      'svc-kms 700',
      'the data volume belongs to the service user only',
    );

    // Host networking: the container's own port is the host's (bridge networks need more than this machine allows).
    // One free now: a random one could be another test's server's, and the container would exit at once.
    const port = String(await freePort());
    const volume = `svc-kms-test-${process.pid}`;
    const name = `svc-kms-test-${process.pid}`;
    const runService = () =>
      podman([
        'run',
        '--detach',
        ...CONTAINER_LIMITS,
        '--name',
        name,
        '--network=host',
        '--volume',
        `${volume}:/var/lib/svc-kms`,
        '--env',
        `SVC_HTTP_PORT=${port}`,
        '--env',
        'SVC_HTTP_HOST=127.0.0.1',
        '--env',
        'SVC_JOURNAL_KIND=rdb-embedded',
        '--env',
        'SVC_AUDIT_KIND=rdb-embedded',
        IMAGE,
      ]);
    t.teardown(async () => {
      await podman(['rm', '--force', '--time=0', name]).catch(() => undefined);
      await podman(['volume', 'rm', '--force', volume]).catch(() => undefined);
    });
    const url = `http://127.0.0.1:${port}`;
    // Answering /healthz; a container that stopped instead fails the wait at once, with what its server said.
    const serving = async () => {
      if ((await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200) return true;
      const running = (await podman(['inspect', '--format', '{{.State.Running}}', name])).stdout.trim();
      if (running !== 'true')
        throw new Error(`the container stopped: ${(await podman(['logs', name])).stderr.slice(-2000)}`);
      return false;
    };
    await runService();
    await until(serving, 'the container to answer /healthz', 60_000);

    const dir = mkdtempSync(path.join(tmpdir(), 'svc-container-'));
    const walk = await bash(block('## Walk-through').replaceAll('http://localhost:8080', url), dir);
    t.equal(walk.code, 0, `the walk-through runs against the container: ${walk.stderr.slice(-2000)}`);
    t.match(walk.stdout, /"state":"Active"/, 'a key was activated');
    t.match(walk.stdout, /"valid":true/, 'a signature verified');
    const api = new ApiClient(url, { 'X-Svc-User': 'alice' });
    t.equal((await api.get('/v1/audit/verify?full=true')).body.valid, true, 'the audit chain in the volume verifies');
    const keys = (await api.get('/v1/keys?limit=100')).body;

    const backup = await podman([
      'exec',
      name,
      'node',
      'scripts/backup-sqlite.mjs',
      '/var/lib/svc-kms/backup-1',
      '/var/lib/svc-kms/journal.db',
      '/var/lib/svc-kms/audit.db',
    ]);
    t.match(
      backup.stdout,
      /journal\.db -> .*integrity ok\)\n.*audit\.db -> .*integrity ok\)/,
      'an online backup inside the running container, as install.md shows',
    );
    t.equal(
      await podman(['healthcheck', 'run', name]).then(
        () => 0,
        (err) => err.code,
      ),
      0,
      'the HEALTHCHECK passes',
    );
    await podman(['stop', '--time=20', name]);
    t.equal(
      (await podman(['inspect', '--format', '{{.State.ExitCode}}', name])).stdout.trim(),
      '0',
      'podman stop (SIGTERM to node as PID 1): a clean exit 0',
    );
    t.match(
      (await podman(['logs', name])).stderr,
      /"msg":"shutting down".*"signal":"SIGTERM"/,
      'the server itself handled the signal',
    );
    await podman(['rm', name]);

    await runService();
    await until(serving, 'the second container to answer', 60_000);
    t.same((await api.get('/v1/keys?limit=100')).body, keys, 'a new container on the same volume has every key');
  },
);
