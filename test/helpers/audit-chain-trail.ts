import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Test } from 'tap';
import { serverConnection } from '../../plugins/sql-support/connection-url.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { systemClock } from '../../kernel/ports/clock.ts';
import { KnexAuditSink } from '../../plugins/audit-sink/knex/knex-audit-sink.ts';
import { serverKnexSettings } from '../../plugins/sql-support/server-connection.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { freshDatabase, type TestDatabase } from './databases.ts';
import { insiderSql } from './insider-sql.ts';
import { startTestService, tempDir, type TestService } from './service.ts';

/**
 * Shared setup of the audit-chain attack tests (test/e2e/audit-chain-*.test.ts): a service over a folder
 * that survives a restart, an insider's SQL on its audit and journal stores, rows forged as an insider
 * writes them, and an audit sink that writes a trail before the service first starts.
 */
export const NODE = 'kms-1';
export const KINDS = ['sqlite', 'postgresql', 'mysql'] as const;
export type Kind = (typeof KINDS)[number];

export interface Trail {
  service: TestService;
  db: TestDatabase | undefined;
  dir: string;
  sql(sql: string, store?: 'audit' | 'journal'): string;
  restart(): Promise<TestService>;
}

/**
 * A service whose journal keeps its node registry on disk (or in the server database), over a folder that survives a
 * restart.
 */
export async function trail(t: Test, kind: Kind, env: Record<string, string> = {}): Promise<Trail | undefined> {
  const db = kind === 'sqlite' ? undefined : await freshDatabase(t, kind);
  if (kind !== 'sqlite' && !db) return undefined;
  const dir = tempDir('svc-chain-attacks-');
  const fullEnv = {
    SVC_JOURNAL_KIND: 'rdb-embedded',
    SVC_NODE_ID: NODE,
    SVC_RATE_LIMIT_ENABLED: 'false',
    ...(db?.env ?? {}),
    ...env,
  };
  const self: Trail = {
    service: await startTestService(fullEnv, { dir }),
    db,
    dir,
    sql: (sql, store) => insiderSql(dir, db, sql, store),
    restart: async () => {
      await self.service.stop();
      self.service = await startTestService(fullEnv, { dir });
      return self.service;
    },
  };
  t.teardown(() => self.service.stop());
  return self;
}

/**
 * A database (none on SQLite) and a service folder, before any service has started: write a trail with `sink` first.
 */
export interface Unstarted {
  db: TestDatabase | undefined;
  dir: string;
  /** An audit sink writing as `node` would, straight into the trail the service will read. */
  sink(node?: string): KnexAuditSink;
  sql(sql: string, store?: 'audit' | 'journal'): string;
}

export async function unstarted(t: Test, kind: 'sqlite' | 'postgresql'): Promise<Unstarted | undefined> {
  const db = kind === 'sqlite' ? undefined : await freshDatabase(t, kind);
  if (kind !== 'sqlite' && !db) return undefined;
  const dir = tempDir('svc-chain-attacks-');
  const settings = db
    ? serverKnexSettings('postgresql', serverConnection(db.url, 'postgresql', db.user, db.password), {
        max: 4,
        acquireTimeoutMs: 5000,
        bootTimeoutMs: 20000,
      })
    : sqliteKnexSettings(path.join(dir, 'audit.db'));
  return {
    db,
    dir,
    sink: (node = NODE) =>
      new KnexAuditSink(
        settings,
        0,
        systemClock,
        createStderrLogger('error', () => {}),
        node,
      ),
    sql: (sql, store) => insiderSql(dir, db, sql, store),
  };
}

export async function someCalls(service: TestService, encrypts: number): Promise<void> {
  const api = service.client();
  const key = await api.key({ algorithm: 'AES' });
  for (let i = 0; i < encrypts; i++) {
    const res = await api.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: 'aGk=' });
    if (res.status !== 200) throw new Error(`encrypt answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
}

/**
 * The verification report; any answer but 200 (an intact or a broken trail alike) fails the test with its status and
 * body.
 */
export async function verify(service: TestService, query = ''): Promise<Record<string, unknown>> {
  const res = await service.client('auditor').get(`/v1/audit/verify${query}`);
  if (res.status !== 200)
    throw new Error(`GET /v1/audit/verify${query} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as Record<string, unknown>;
}
const quote = (value: string | null) => (value === null ? 'null' : `'${value.replaceAll("'", "''")}'`);

/** An INSERT of one audit row with exactly these columns, as an insider writes it. */
export function insertRow(row: Record<string, string | null>): string {
  return `insert into svc_audit (${Object.keys(row).join(', ')}) values (${Object.values(row).map(quote).join(', ')})`;
}

export const forgedRow = (over: Record<string, string | null>) => ({
  event_id: randomUUID(),
  occurred_at: new Date().toISOString(),
  actor: 'alice',
  actor_kind: 'Human',
  operation: 'Destroy',
  resource: randomUUID(),
  outcome: 'Success',
  context: '{}',
  correlation_id: 'forged',
  ...over,
});
