import path from 'node:path';
import { redactUrl } from '../../kernel/index.ts';

/** JDBC-style database URLs (jdbc:postgresql://...) and native ones, turned into connection settings. */
export function sqlitePath(url: string): string {
  const file = url.replace(/^jdbc:sqlite:/, '').replace(/^sqlite:(\/\/)?/, '');
  if (!file || file === ':memory:' || file.includes('mode=memory')) {
    throw new Error(`rdb-embedded needs a file path, not an in-memory database: "${url}"`);
  }
  return path.resolve(file);
}

export interface ServerConnection {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
}

/**
 * Parses `jdbc:postgresql://host:port/db?user=u&password=p`, `postgres://u:p@host:port/db`,
 * `jdbc:mysql://...` or `mysql://...`. Separate username and password settings win over the URL's.
 */
export function serverConnection(
  url: string,
  kind: 'postgresql' | 'mysql',
  username: string,
  password: string,
): ServerConnection {
  const native = url.replace(/^jdbc:/, '').replace(/^(postgresql|postgres|mysql|mariadb):\/\//, 'db://');
  let parsed: URL;
  try {
    parsed = new URL(native);
  } catch {
    throw new Error(
      `"${redactUrl(url)}" is not a ${kind} URL (jdbc:${kind}://host:port/database or ${kind === 'mysql' ? 'mysql' : 'postgres'}://user:password@host:port/database)`,
    );
  }
  return {
    host: parsed.hostname || 'localhost',
    port: parsed.port ? Number(parsed.port) : kind === 'postgresql' ? 5432 : 3306,
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'svc',
    user: username || decodeURIComponent(parsed.username) || parsed.searchParams.get('user') || '',
    password: password || decodeURIComponent(parsed.password) || parsed.searchParams.get('password') || '',
  };
}

/** host:port/database of a connection, never its credentials. */
export const describeConnection = (c: ServerConnection): string => `${c.host}:${c.port}/${c.database}`;
