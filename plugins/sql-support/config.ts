import { defineConfig } from '../../kernel/index.ts';

/**
 * Settings shared by the SQL plugins. Each is one object that every plugin using it declares in its own
 * fragment (the journal and the audit sink of one database share the connection settings); the
 * configuration stitcher accepts the same leaf from several plugins.
 */
export const postgresConnection = defineConfig({
  jdbc: {
    url: { doc: 'rdb-server-1 (PostgreSQL) URL, JDBC-style or native.', format: String, default: 'jdbc:postgresql://localhost:5432/svc', env: 'SVC_JDBC_URL' },
    username: { doc: 'rdb-server-1 user.', format: String, default: '', env: 'SVC_JDBC_USERNAME' },
    password: { doc: 'rdb-server-1 password; no default, the operator supplies it.', format: String, default: '', env: 'SVC_JDBC_PASSWORD', sensitive: true },
  },
});

export const mysqlConnection = defineConfig({
  rdb2: {
    jdbcUrl: { doc: 'rdb-server-2 (MySQL/MariaDB) URL, JDBC-style or native.', format: String, default: '', env: 'SVC_RDB2_JDBC_URL' },
    username: { doc: 'rdb-server-2 user.', format: String, default: '', env: 'SVC_RDB2_USERNAME' },
    password: { doc: 'rdb-server-2 password.', format: String, default: '', env: 'SVC_RDB2_PASSWORD', sensitive: true },
  },
});

export const serverPool = defineConfig({
  database: {
    poolMax: { doc: 'Connections per pool (journal and audit each have one) on rdb-server-1/2.', format: 'nat', default: 10, env: 'SVC_DB_POOL_MAX' },
    acquireTimeoutMs: { doc: 'How long a request waits for a database connection before it answers 503 (audit reads queue for their own reader connections up to 60 s; reaching the database keeps this bound).', format: 'nat', default: 3000, env: 'SVC_DB_ACQUIRE_TIMEOUT_MS' },
    bootTimeoutMs: { doc: 'How long boot waits for the database before it fails.', format: 'nat', default: 15000, env: 'SVC_DB_BOOT_TIMEOUT_MS' },
  },
});

export const sqliteFile = defineConfig({
  rdbEmbedded: {
    jdbcUrl: { doc: 'rdb-embedded (SQLite) journal file: jdbc:sqlite:/path/journal.db or a plain path. Never in-memory.', format: String, default: 'data/journal.db', env: 'SVC_RDB_EMBEDDED_JDBC_URL' },
  },
});

export const auditRetention = defineConfig({
  audit: {
    retentionDays: { doc: 'Audit rows older than this are pruned daily; 0 disables pruning.', format: 'nat', default: 365, env: 'SVC_AUDIT_RETENTION_DAYS' },
  },
});

/** The fragment of a PostgreSQL plugin, of a MySQL plugin: connection and pool. */
export const postgresFragment = { ...postgresConnection, ...serverPool };
export const mysqlFragment = { ...mysqlConnection, ...serverPool };
