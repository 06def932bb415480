import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** The service's settings for a journal and audit trail in new SQLite files in `dir` (rdb-embedded). */
export const sqliteStoreEnv = (dir: string): Record<string, string> => ({
  SVC_JOURNAL_KIND: 'rdb-embedded',
  SVC_AUDIT_KIND: 'rdb-embedded',
  SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(dir, 'journal.db')}`,
  SVC_AUDIT_EMBEDDED_PATH: path.join(dir, 'audit.db'),
});

/**
 * Creates database `name` on the private PostgreSQL whose variables `pg` are (startPrivatePostgres) and
 * returns the service's settings for a journal and audit trail in it (rdb-server-1, a local KEK).
 */
export function postgresStoreEnv(pg: Record<string, string>, name: string): Record<string, string> {
  execFileSync('psql', [pg.SVC_TEST_PG_ADMIN_URL!, '-qc', `create database ${name} owner ${pg.SVC_TEST_PG_USER}`], {
    stdio: 'ignore',
  });
  return {
    SVC_JOURNAL_KIND: 'rdb-server-1',
    SVC_AUDIT_KIND: 'rdb-server-1',
    SVC_JDBC_URL: pg.SVC_TEST_PG_URL!.replace(/\/[^/]+$/, `/${name}`),
    SVC_JDBC_USERNAME: pg.SVC_TEST_PG_USER!,
    SVC_JDBC_PASSWORD: pg.SVC_TEST_PG_PASSWORD!,
    SVC_CRYPTO_LOCAL_KEK: Buffer.alloc(32, 3).toString('base64'),
  };
}
