import path from 'node:path';
import { sqlitePath } from '../../../config/urls.ts';
import { definePlugin, KERNEL_API_VERSION } from '../../../kernel/define-plugin.ts';
import { auditSinkPort } from '../../../kernel/ports/audit-sink.ts';
import { sqliteKnexSettings } from '../../sql-support/sqlite-connection.ts';
import { KnexAuditSink } from './knex-audit-sink.ts';

export default definePlugin({
  id: 'audit-sink-sqlite',
  apiVersion: KERNEL_API_VERSION,
  provides: auditSinkPort,
  kind: 'rdb-embedded',
  description: 'queryable SQLite audit trail (audit.db beside journal.db by default)',
  configSlice: (all: Record<string, any>) => ({
    file: all.audit.embeddedPath ? path.resolve(all.audit.embeddedPath) : path.join(path.dirname(sqlitePath(all.rdbEmbedded.jdbcUrl)), 'audit.db'),
    retentionDays: all.audit.retentionDays as number,
  }),
  create: ({ config, clock, logger }) => new KnexAuditSink(sqliteKnexSettings(config.file), config.retentionDays, clock, logger),
});
