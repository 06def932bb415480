import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import type { Test } from 'tap';
import { serverMissing } from './test-server.ts';

export type ServerKind = 'postgresql' | 'mysql';

export interface TestDatabase {
  kind: ServerKind;
  /** JDBC-style URL of a fresh database, and the credentials the service uses for it. */
  url: string;
  user: string;
  password: string;
  /** SVC_* variables that point the journal and the audit sink at this database. */
  env: Record<string, string>;
}

const VARS = {
  postgresql: {
    url: 'SVC_TEST_PG_URL',
    user: 'SVC_TEST_PG_USER',
    password: 'SVC_TEST_PG_PASSWORD',
    admin: 'SVC_TEST_PG_ADMIN_URL',
  },
  mysql: {
    url: 'SVC_TEST_MYSQL_URL',
    user: 'SVC_TEST_MYSQL_USER',
    password: 'SVC_TEST_MYSQL_PASSWORD',
    admin: 'SVC_TEST_MYSQL_ADMIN_URL',
  },
} as const;

/**
 * A fresh, empty database on the test server of this kind (started by scripts/test-services.sh). When the
 * server is missing the calling test is skipped, or failed under SVC_TEST_REQUIRE_SERVICES=1 (CI).
 */
export async function freshDatabase(t: Test, kind: ServerKind): Promise<TestDatabase | undefined> {
  const v = VARS[kind];
  const base = process.env[v.url];
  if (!base || !process.env[v.admin]) {
    const why = `${kind} test server not available (${v.url} unset; run through npm test, which starts it)`;
    return serverMissing(t, why);
  }
  const name = `svc_${randomBytes(6).toString('hex')}`;
  const user = process.env[v.user]!;
  const admin = knexFactory({ client: kind === 'postgresql' ? 'pg' : 'mysql2', connection: process.env[v.admin]! });
  try {
    if (kind === 'postgresql') await admin.raw(`create database ${name} owner ${user}`);
    else {
      await admin.raw(`create database ${name}`);
      await admin.raw(`grant all on ${name}.* to '${user}'@'%'`);
    }
  } finally {
    await admin.destroy();
  }
  const url = base.replace(/\/[^/]+$/, `/${name}`);
  const password = process.env[v.password]!;
  const env: Record<string, string> =
    kind === 'postgresql'
      ? {
          SVC_JOURNAL_KIND: 'rdb-server-1',
          SVC_AUDIT_KIND: 'rdb-server-1',
          SVC_JDBC_URL: url,
          SVC_JDBC_USERNAME: user,
          SVC_JDBC_PASSWORD: password,
        }
      : {
          SVC_JOURNAL_KIND: 'rdb-server-2',
          SVC_AUDIT_KIND: 'rdb-server-2',
          SVC_RDB2_JDBC_URL: url,
          SVC_RDB2_USERNAME: user,
          SVC_RDB2_PASSWORD: password,
        };
  return { kind, url, user, password, env: { ...env, SVC_CRYPTO_LOCAL_KEK: Buffer.alloc(32, 9).toString('base64') } };
}
