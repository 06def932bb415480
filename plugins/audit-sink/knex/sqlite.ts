import path from 'node:path';
import { sqlitePath } from '../../../config/urls.ts';
import { auditSinkPort, type ConfigValues, defineConfig, definePlugin, journalPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { auditRetention, sqliteFile } from '../../sql-support/config.ts';
import { sqliteKnexSettings } from '../../sql-support/sqlite-connection.ts';
import { KnexAuditSink } from './knex-audit-sink.ts';
import { nodeIdOf } from '../../../config/node.ts';
import type { BaseConfig } from '../../../config/schema.ts';

const auditSqliteConfig = defineConfig({
  ...sqliteFile,
  audit: {
    ...auditRetention.audit,
    embeddedPath: { doc: 'rdb-embedded audit file; empty means audit.db beside journal.db.', format: String, default: '', env: 'SVC_AUDIT_EMBEDDED_PATH' },
  },
});

export default definePlugin({
  id: 'audit-sink-sqlite',
  apiVersion: KERNEL_API_VERSION,
  provides: auditSinkPort,
  // The journal's node registry: the chain is checked against the nodes it knows and the heads they recorded.
  dependsOn: { journal: journalPort },
  kind: 'rdb-embedded',
  description: 'queryable SQLite audit trail (audit.db beside journal.db by default)',
  config: auditSqliteConfig,
  configSlice: (all: BaseConfig & ConfigValues<typeof auditSqliteConfig>) => ({
    file: all.audit.embeddedPath ? path.resolve(all.audit.embeddedPath) : path.join(path.dirname(sqlitePath(all.rdbEmbedded.jdbcUrl)), 'audit.db'),
    retentionDays: all.audit.retentionDays,
    node: nodeIdOf(all),
  }),
  create: ({ config, clock, logger, deps }) => new KnexAuditSink(sqliteKnexSettings(config.file, logger), config.retentionDays, clock, logger, config.node, deps.journal.nodes),
});
