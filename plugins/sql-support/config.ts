import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../kernel/index.ts';

/**
 * Settings shared by the SQL plugins. Each is one TypeBox object that every plugin using it puts into its
 * own settings (the journal and the audit sink of one database share the connection settings); the
 * configuration loader accepts the very same setting from several plugins.
 */
export const postgresConnection = defineSettings(
  Type.Object({
    jdbc: Type.Object({
      url: Type.String({
        description: 'rdb-server-1 (PostgreSQL) URL, JDBC-style or native.',
        default: 'jdbc:postgresql://localhost:5432/svc',
      }),
      username: Type.String({ description: 'rdb-server-1 user.', default: '' }),
      password: Type.String({
        description: 'rdb-server-1 password; no default, the operator supplies it.',
        default: '',
        sensitive: true,
      }),
    }),
  }),
);

export const mysqlConnection = defineSettings(
  Type.Object({
    rdb2: Type.Object({
      jdbcUrl: Type.String({ description: 'rdb-server-2 (MySQL/MariaDB) URL, JDBC-style or native.', default: '' }),
      username: Type.String({ description: 'rdb-server-2 user.', default: '' }),
      password: Type.String({ description: 'rdb-server-2 password.', default: '', sensitive: true }),
    }),
  }),
);

export const serverPool = defineSettings(
  Type.Object({
    database: Type.Object({
      poolMax: Type.Integer({
        minimum: 0,
        description: 'Connections per pool (journal and audit each have one) on rdb-server-1/2.',
        default: 10,
        env: 'SVC_DB_POOL_MAX',
      }),
      acquireTimeoutMs: Type.Integer({
        minimum: 0,
        description:
          'How long a request waits for a database connection before it answers ' +
          '503 (audit reads queue for their own reader connections up to 60 s; ' +
          'reaching the database keeps this bound).',
        default: 3000,
        env: 'SVC_DB_ACQUIRE_TIMEOUT_MS',
      }),
      bootTimeoutMs: Type.Integer({
        minimum: 0,
        description: 'How long boot waits for the database before it fails.',
        default: 15000,
        env: 'SVC_DB_BOOT_TIMEOUT_MS',
      }),
    }),
  }),
);

export const sqliteFile = defineSettings(
  Type.Object({
    rdbEmbedded: Type.Object({
      jdbcUrl: Type.String({
        description:
          'rdb-embedded (SQLite) journal file: jdbc:sqlite:/path/journal.db or a plain path. Never in-memory.',
        default: 'data/journal.db',
      }),
    }),
  }),
);

export const auditRetention = defineSettings(
  Type.Object({
    audit: Type.Object({
      retentionDays: Type.Integer({
        minimum: 0,
        description: 'Audit rows older than this are pruned daily; 0 disables pruning.',
        default: 365,
      }),
    }),
  }),
);

/** The settings of a PostgreSQL plugin, of a MySQL plugin: connection and pool. */
export const postgresServer = defineSettings(
  Type.Object({ ...postgresConnection.properties, ...serverPool.properties }),
);
export const mysqlServer = defineSettings(Type.Object({ ...mysqlConnection.properties, ...serverPool.properties }));

/**
 * The audit settings of a database server's plugin: retention, and how far apart its commits start. 0 (the default)
 * writes each batch as soon as the one before it is stored. Above 0, records arriving within the interval share one
 * INSERT: fewer round trips for the node and the database, each record waiting up to the interval longer, and a
 * client that sends one request at a time getting at most one answer an interval (docs/operations.md, "Audit
 * commit spacing"). SQLite's commits are spaced by the file's own needs (sqlite-row-writer.ts).
 */
export const serverAudit = defineSettings(
  Type.Object({
    audit: Type.Object({
      ...auditRetention.properties.audit.properties,
      commitIntervalMs: Type.Integer({
        minimum: 0,
        maximum: 100,
        description:
          'rdb-server-1/2 audit: minimum ms between the starts of two commits; records arriving meanwhile share ' +
          'one INSERT (24 waiting commit at once). 0 commits each batch as soon as the previous one is stored.',
        default: 0,
      }),
    }),
  }),
);
