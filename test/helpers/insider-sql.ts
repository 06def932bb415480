import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { TestDatabase } from './databases.ts';

/**
 * Runs SQL with the database's own command-line client, as an insider with access to the database
 * would (sqlite3, psql, mariadb), and answers what it printed, one row a line, fields split by '|'.
 * On SQLite `store` picks the file in the service's folder: the audit trail or the journal; the server
 * databases hold both in one database.
 */
export function insiderSql(
  svcDir: string,
  db: TestDatabase | undefined,
  sql: string,
  store: 'audit' | 'journal' = 'audit',
): string {
  if (!db) return execFileSync('sqlite3', [path.join(svcDir, `${store}.db`), sql], { encoding: 'utf8' });
  const u = new URL(
    db.url
      .replace(/^jdbc:/, '')
      .replace(/^postgresql:/, 'http:')
      .replace(/^mysql:/, 'http:'),
  );
  const name = u.pathname.slice(1);
  if (db.kind === 'postgresql')
    return execFileSync('psql', ['-q', '-At', `postgres://postgres@${u.hostname}:${u.port}/${name}`, '-c', sql], {
      encoding: 'utf8',
    });
  return execFileSync(
    'mariadb',
    ['--no-defaults', '-N', '-B', '-h', u.hostname, '-P', u.port, '-u', 'root', name, '-e', sql],
    { encoding: 'utf8' },
  ).replaceAll('\t', '|');
}
