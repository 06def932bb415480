import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const SERVICES = path.resolve(import.meta.dirname, '../../scripts/test-services.sh');

/**
 * Starts a throwaway PostgreSQL in `dir` with the project's own script (`test-services.sh start-pg`, which
 * installs it when missing) and returns the variables it wrote there (SVC_TEST_PG_URL, SVC_TEST_PG_ADMIN_URL,
 * SVC_TEST_PG_USER, SVC_TEST_PG_PASSWORD...). `env` reaches the script (PG_FSYNC=on for durable commits).
 * Free of side effects on import, unlike harness.ts, so unpinned benches can use it.
 */
export function startPrivatePostgres(dir: string, env: Record<string, string> = {}): Record<string, string> {
  execFileSync('bash', [SERVICES, 'start-pg', dir], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return Object.fromEntries(
    [...readFileSync(path.join(dir, 'env'), 'utf8').matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
  );
}

/** Stops what startPrivatePostgres started in `dir`. */
export function stopPrivatePostgres(dir: string): void {
  execFileSync('bash', [SERVICES, 'stop', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
}
