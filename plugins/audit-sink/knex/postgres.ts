import { serverConnection } from '../../../config/urls.ts';
import { definePlugin, KERNEL_API_VERSION } from '../../../kernel/define-plugin.ts';
import { auditSinkPort } from '../../../kernel/ports/audit-sink.ts';
import { serverKnexSettings } from '../../sql-support/server-connection.ts';
import { KnexAuditSink } from './knex-audit-sink.ts';

export default definePlugin({
  id: 'audit-sink-postgres',
  apiVersion: KERNEL_API_VERSION,
  provides: auditSinkPort,
  kind: 'rdb-server-1',
  description: 'queryable PostgreSQL audit trail',
  configSlice: (all: Record<string, any>) => ({
    connection: serverConnection(all.jdbc.url, 'postgresql', all.jdbc.username, all.jdbc.password),
    pool: { max: all.database.poolMax as number, acquireTimeoutMs: all.database.acquireTimeoutMs as number, bootTimeoutMs: all.database.bootTimeoutMs as number },
    retentionDays: all.audit.retentionDays as number,
  }),
  create: ({ config, clock, logger }) => new KnexAuditSink(serverKnexSettings('postgresql', config.connection, config.pool), config.retentionDays, clock, logger),
});
