import { auditSinkPort, type ConfigValues, definePlugin, journalPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { auditRetention, mysqlFragment } from '../../sql-support/config.ts';
import { mysqlSettings } from '../../sql-support/server-connection.ts';
import { KnexAuditSink } from './knex-audit-sink.ts';
import { nodeIdOf } from '../../../config/node.ts';
import type { BaseConfig } from '../../../config/schema.ts';

export default definePlugin({
  id: 'audit-sink-mysql',
  apiVersion: KERNEL_API_VERSION,
  provides: auditSinkPort,
  // The journal's node registry: the chain is checked against the nodes it knows and the heads they recorded.
  dependsOn: { journal: journalPort },
  kind: 'rdb-server-2',
  description: 'queryable MySQL/MariaDB audit trail',
  config: { ...mysqlFragment, ...auditRetention },
  configSlice: (all: BaseConfig & ConfigValues<typeof mysqlFragment & typeof auditRetention>) => ({ settings: mysqlSettings(all), retentionDays: all.audit.retentionDays, node: nodeIdOf(all) }),
  create: ({ config, clock, logger, deps }) => new KnexAuditSink(config.settings, config.retentionDays, clock, logger, config.node, deps.journal.nodes),
});
