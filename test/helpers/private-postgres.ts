import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { serverMissing } from './test-server.ts';

const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/test-services.sh');

export interface PrivatePostgres {
  env: Record<string, string>;
  url: string;
  down(): void;
  up(): void;
}

/**
 * A PostgreSQL of this test's own, which it may stop and start again on the same port (the shared test
 * server stays up for the other suites). Fails or skips like freshDatabase when PostgreSQL is missing.
 */
export function privatePostgres(t: Test): PrivatePostgres | undefined {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-pg-'));
  const run = (cmd: string) => execFileSync('bash', [SCRIPT, cmd, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    run('start-pg');
  } catch (err) {
    const why = `private PostgreSQL could not start: ${String((err as { stderr?: Buffer }).stderr ?? err).slice(0, 300)}`;
    return serverMissing(t, why);
  }
  t.teardown(() => run('stop'));
  const vars = Object.fromEntries(
    readFileSync(path.join(dir, 'env'), 'utf8')
      .split('\n')
      .flatMap((line) => [...line.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])),
  );
  const url = vars.SVC_TEST_PG_URL!;
  return {
    url,
    env: {
      SVC_JOURNAL_KIND: 'rdb-server-1',
      SVC_AUDIT_KIND: 'rdb-server-1',
      SVC_JDBC_URL: url,
      SVC_JDBC_USERNAME: vars.SVC_TEST_PG_USER!,
      SVC_JDBC_PASSWORD: vars.SVC_TEST_PG_PASSWORD!,
      SVC_CRYPTO_LOCAL_KEK: Buffer.alloc(32, 5).toString('base64'),
    },
    down: () => run('pg-down'),
    up: () => run('pg-up'),
  };
}
