import { Type } from '@sinclair/typebox';
import { auditSinkPort, definePlugin, defineSettings, journalPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { mysqlServer, serverAudit } from '../../sql-support/config.ts';
import { mysqlSettings } from '../../sql-support/server-connection.ts';
import { KnexAuditSink } from './knex-audit-sink.ts';

const auditMysqlSettings = defineSettings(Type.Object({ ...mysqlServer.properties, ...serverAudit.properties }));

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
    commitIntervalMs: settings.audit.commitIntervalMs,
    node: nodeId,
  }),
  create: ({ config, clock, logger, deps }) =>
    new KnexAuditSink(config.settings, config.retentionDays, clock, logger, config.node, deps.journal.nodes, {
      commitIntervalMs: config.commitIntervalMs,
    }),
});
