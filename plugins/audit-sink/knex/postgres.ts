import { Type } from '@sinclair/typebox';
import { auditSinkPort, definePlugin, defineSettings, journalPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { postgresServer, serverAudit } from '../../sql-support/config.ts';
import { postgresSettings } from '../../sql-support/server-connection.ts';
import { KnexAuditSink } from './knex-audit-sink.ts';

const auditPostgresSettings = defineSettings(Type.Object({ ...postgresServer.properties, ...serverAudit.properties }));

export default definePlugin({
  id: 'audit-sink-postgres',
  apiVersion: KERNEL_API_VERSION,
  provides: auditSinkPort,
  // The journal's node registry: the chain is checked against the nodes it knows and the heads they recorded.
  dependsOn: { journal: journalPort },
  kind: 'rdb-server-1',
  description: 'queryable PostgreSQL audit trail',
  settings: auditPostgresSettings,
  configure: (settings, { nodeId }) => ({
    settings: postgresSettings(settings),
    retentionDays: settings.audit.retentionDays,
    commitIntervalMs: settings.audit.commitIntervalMs,
    node: nodeId,
  }),
  create: ({ config, clock, logger, deps }) =>
    new KnexAuditSink(config.settings, config.retentionDays, clock, logger, config.node, deps.journal.nodes, {
      commitIntervalMs: config.commitIntervalMs,
    }),
});
