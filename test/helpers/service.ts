import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startService } from '../../app/start.ts';
import type { RunningKernel } from '../../kernel/boot.ts';
import type { Clock } from '../../kernel/ports/clock.ts';
import type { Logger } from '../../kernel/ports/logger.ts';
import { ApiClient } from './client.ts';

export interface TestService {
  kernel: RunningKernel;
  url: string;
  dir: string;
  env: Record<string, string>;
  logs: string[];
  client(user?: string): ApiClient;
  stop(): Promise<void>;
}

export function tempDir(prefix = 'svc-kms-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/**
 * Boots the real service in this process on 127.0.0.1 and a free port. By default journal and audit
 * are SQLite files in a fresh folder (so tests can read the audit trail back); env overrides anything.
 */
export async function startTestService(
  env: Record<string, string> = {},
  opts: { clock?: Clock; dir?: string; argv?: string[] } = {},
): Promise<TestService> {
  const dir = opts.dir ?? tempDir();
  const fullEnv: Record<string, string> = {
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_JOURNAL_KIND: 'in-memory',
    SVC_AUDIT_KIND: 'rdb-embedded',
    SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(dir, 'journal.db')}`,
    SVC_AUDIT_EMBEDDED_PATH: path.join(dir, 'audit.db'),
    SVC_DATA_DIR: dir,
    ...env,
  };
  const logs: string[] = [];
  const logger: Logger = {
    info: (msg, f) => logs.push(JSON.stringify({ level: 'info', msg, ...f })),
    warn: (msg, f) => logs.push(JSON.stringify({ level: 'warn', msg, ...f })),
    error: (msg, f) => logs.push(JSON.stringify({ level: 'error', msg, ...f })),
  };
  const kernel = await startService({
    argv: opts.argv ?? [],
    env: fullEnv,
    logger,
    clock: opts.clock,
    print: (text) => logs.push(text),
  });
  const url = `http://127.0.0.1:${kernel.address!.port}`;
  return {
    kernel,
    url,
    dir,
    env: fullEnv,
    logs,
    client: (user = 'alice') => new ApiClient(url, { 'X-Svc-User': user }),
    stop: async () => {
      await kernel.stop();
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(private current = new Date('2026-01-05T10:00:00.000Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}
