import path from 'node:path';

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
export function serverConnection(url: string, kind: 'postgresql' | 'mysql', username: string, password: string): ServerConnection {
  const native = url.replace(/^jdbc:/, '').replace(/^(postgresql|postgres|mysql|mariadb):\/\//, 'db://');
  let parsed: URL;
  try {
    parsed = new URL(native);
  } catch {
    throw new Error(`"${redactUrl(url)}" is not a ${kind} URL (jdbc:${kind}://host:port/database or ${kind === 'mysql' ? 'mysql' : 'postgres'}://user:password@host:port/database)`);
  }
  return {
    host: parsed.hostname || 'localhost',
    port: parsed.port ? Number(parsed.port) : kind === 'postgresql' ? 5432 : 3306,
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'svc',
    user: username || decodeURIComponent(parsed.username) || parsed.searchParams.get('user') || '',
    password: password || decodeURIComponent(parsed.password) || parsed.searchParams.get('password') || '',
  };
}

/** Query (or JDBC `;name=value`) parameters whose value is a credential, by a part of their name. */
const CREDENTIAL_PARAMETER = /pass|pwd|token|secret|key|signature|^sig$|auth|credential|session/i;

/**
 * The text with every credential written into a URL replaced by `***`, for messages, logs and
 * `--print-config`: the password of every `scheme://user:password@` (a comma list of URLs has one per
 * entry) and the value of every parameter named like a credential (`?token=`, `&access_token=`,
 * `;password=`, `#signature=` ...). The password runs to the last `@` before the host's `/` or a
 * blank, so an unencoded `@` in it is hidden too; hiding too much is the safe side.
 */
export function redactUrl(text: string): string {
  return text
    .replace(/(\/\/[^\s:@/]*):[^\s/]*@/g, '$1:***@')
    .replace(/([?&#;])([^=&#;\s,]+)=([^&#;\s,]*)/g, (all, separator: string, name: string) => (CREDENTIAL_PARAMETER.test(name) ? `${separator}${name}=***` : all));
}

/** host:port/database of a connection, never its credentials. */
export const describeConnection = (c: ServerConnection): string => `${c.host}:${c.port}/${c.database}`;
