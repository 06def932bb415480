import { Type } from '@sinclair/typebox';
import { auditSinkPort, definePlugin, defineSettings, journalPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { auditRetention, mysqlServer } from '../../sql-support/config.ts';
import { mysqlSettings } from '../../sql-support/server-connection.ts';
import { KnexAuditSink } from './knex-audit-sink.ts';

const auditMysqlSettings = defineSettings(Type.Object({ ...mysqlServer.properties, ...auditRetention.properties }));

export default definePlugin({
  id: 'audit-sink-mysql',
  apiVersion: KERNEL_API_VERSION,
  provides: auditSinkPort,
  // The journal's node registry: the chain is checked against the nodes it knows and the heads they recorded.
  dependsOn: { journal: journalPort },
  kind: 'rdb-server-2',
  description: 'queryable MySQL/MariaDB audit trail',
  settings: auditMysqlSettings,
  configure: (settings, { nodeId }) => ({
    settings: mysqlSettings(settings),
    retentionDays: settings.audit.retentionDays,
    node: nodeId,
  }),
  create: ({ config, clock, logger, deps }) =>
    new KnexAuditSink(config.settings, config.retentionDays, clock, logger, config.node, deps.journal.nodes),
});
