import { definePlugin, KERNEL_API_VERSION } from '../../../kernel/define-plugin.ts';
import { auditSinkPort } from '../../../kernel/ports/audit-sink.ts';
import { serverSettingsFromConfig } from '../../sql-support/server-connection.ts';
import { KnexAuditSink } from './knex-audit-sink.ts';

export default definePlugin({
  id: 'audit-sink-postgres',
  apiVersion: KERNEL_API_VERSION,
  provides: auditSinkPort,
  kind: 'rdb-server-1',
  description: 'queryable PostgreSQL audit trail',
  configSlice: (all: Record<string, any>) => ({ settings: serverSettingsFromConfig(all, 'postgresql'), retentionDays: all.audit.retentionDays as number }),
  create: ({ config, clock, logger }) => new KnexAuditSink(config.settings, config.retentionDays, clock, logger),
});
