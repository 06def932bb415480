import { auditSinkPort, type ConfigValues, definePlugin, journalPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { auditRetention, postgresFragment } from '../../sql-support/config.ts';
import { postgresSettings } from '../../sql-support/server-connection.ts';
import { KnexAuditSink } from './knex-audit-sink.ts';
import { nodeIdOf } from '../../../config/node.ts';
import type { BaseConfig } from '../../../config/schema.ts';

export default definePlugin({
  id: 'audit-sink-postgres',
  apiVersion: KERNEL_API_VERSION,
  provides: auditSinkPort,
  // The journal's node registry: the chain is checked against the nodes it knows and the heads they recorded.
  dependsOn: { journal: journalPort },
  kind: 'rdb-server-1',
  description: 'queryable PostgreSQL audit trail',
  config: { ...postgresFragment, ...auditRetention },
  configSlice: (all: BaseConfig & ConfigValues<typeof postgresFragment & typeof auditRetention>) => ({ settings: postgresSettings(all), retentionDays: all.audit.retentionDays, node: nodeIdOf(all) }),
  create: ({ config, clock, logger, deps }) => new KnexAuditSink(config.settings, config.retentionDays, clock, logger, config.node, deps.journal.nodes),
});
