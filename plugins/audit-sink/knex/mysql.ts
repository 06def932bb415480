import { serverConnection } from '../../../config/urls.ts';
import { definePlugin, KERNEL_API_VERSION } from '../../../kernel/define-plugin.ts';
import { auditSinkPort } from '../../../kernel/ports/audit-sink.ts';
import { serverKnexSettings } from '../../sql-support/server-connection.ts';
import { KnexAuditSink } from './knex-audit-sink.ts';

export default definePlugin({
  id: 'audit-sink-mysql',
  apiVersion: KERNEL_API_VERSION,
  provides: auditSinkPort,
  kind: 'rdb-server-2',
  description: 'queryable MySQL/MariaDB audit trail',
  configSlice: (all: Record<string, any>) => ({
    connection: serverConnection(all.rdb2.jdbcUrl, 'mysql', all.rdb2.username, all.rdb2.password),
    pool: { max: all.database.poolMax as number, acquireTimeoutMs: all.database.acquireTimeoutMs as number, bootTimeoutMs: all.database.bootTimeoutMs as number },
    retentionDays: all.audit.retentionDays as number,
  }),
  create: ({ config, clock, logger }) => new KnexAuditSink(serverKnexSettings('mysql', config.connection, config.pool), config.retentionDays, clock, logger),
});
