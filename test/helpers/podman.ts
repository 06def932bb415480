import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

/**
 * podman as this kind of machine allows it: runc, because crun refuses a host with hybrid cgroups (v1
 * controllers beside a v2 mount), and each container's open-file and process limits set no higher than
 * the machine lets a container have: podman's defaults ask for more and the runtime's setrlimit is
 * refused (open files: the caller's own soft limit; processes: refused above 32768 on these machines).
 */
export const PODMAN_GLOBAL = existsSync('/usr/sbin/runc') ? ['--runtime', '/usr/sbin/runc'] : [];
const soft = (flag: string) =>
  Number(execFileSync('bash', ['-c', `ulimit -S${flag}`], { encoding: 'utf8' }).trim()) || 1024;
const files = soft('n');
const processes = Math.min(soft('u'), 32768);
export const CONTAINER_LIMITS = [`--ulimit=nofile=${files}:${files}`, `--ulimit=nproc=${processes}:${processes}`];

export async function podman(args: string[], timeoutMs = 15 * 60_000): Promise<{ stdout: string; stderr: string }> {
  return run('podman', [...PODMAN_GLOBAL, ...args], { cwd: ROOT, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
}

/**
 * The Debian-built stand-in for node:24-bookworm-slim (deploy/container/build-base-image.sh); built once, then cached
 * by tag.
 */
export const BASE_TAG = 'localhost/svc-kms-base:bookworm-slim-node24';

export async function ensureBaseImage(): Promise<{ built: boolean }> {
  const { stdout } = await run('bash', [path.join(ROOT, 'deploy/container/build-base-image.sh'), BASE_TAG], {
    cwd: ROOT,
    timeout: 20 * 60_000,
  });
  return { built: !/cached/.test(stdout) };
}

/**
 * The Dockerfile built on the base above (deploy/container/build-test-image.sh; npm test runs it before the suites, so
 * here it is cached).
 */
export async function buildTestImage(tag: string): Promise<void> {
  await run('bash', [path.join(ROOT, 'deploy/container/build-test-image.sh'), tag], {
    cwd: ROOT,
    timeout: 20 * 60_000,
  });
}
