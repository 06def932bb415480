import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { auditSinkPort, definePlugin, defineSettings, journalPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { auditRetention, sqliteFile } from '../../sql-support/config.ts';
import { sqlitePath } from '../../sql-support/connection-url.ts';
import { sqliteKnexSettings } from '../../sql-support/sqlite-connection.ts';
import { WRITER_AUTOCHECKPOINT_PAGES } from '../../sql-support/wal-checkpointer.ts';
import { KnexAuditSink } from './knex-audit-sink.ts';

/**
 * The audit file's WAL is written over in place up to the size at which its writer would checkpoint by
 * itself (writerPragmas): audit rows carry no secret to erase, and a WAL started over from nothing after
 * every background checkpoint made the audit's commits pause for the file system's metadata.
 */
const AUDIT_WAL_SIZE_LIMIT_BYTES = WRITER_AUTOCHECKPOINT_PAGES * 4096;

const auditSqliteSettings = defineSettings(
  Type.Object({
    ...sqliteFile.properties,
    audit: Type.Object({
      ...auditRetention.properties.audit.properties,
      embeddedPath: Type.String({
        description: 'rdb-embedded audit file; empty means audit.db beside journal.db.',
        default: '',
      }),
    }),
  }),
);

export default definePlugin({
  id: 'audit-sink-sqlite',
  apiVersion: KERNEL_API_VERSION,
  provides: auditSinkPort,
  // The journal's node registry: the chain is checked against the nodes it knows and the heads they recorded.
  dependsOn: { journal: journalPort },
  kind: 'rdb-embedded',
  description: 'queryable SQLite audit trail (audit.db beside journal.db by default)',
  settings: auditSqliteSettings,
  configure: ({ rdbEmbedded, audit }, { nodeId }) => ({
    file: audit.embeddedPath
      ? path.resolve(audit.embeddedPath)
      : path.join(path.dirname(sqlitePath(rdbEmbedded.jdbcUrl)), 'audit.db'),
    retentionDays: audit.retentionDays,
    node: nodeId,
  }),
  create: ({ config, clock, logger, deps }) =>
    new KnexAuditSink(
      sqliteKnexSettings(config.file, logger, false, AUDIT_WAL_SIZE_LIMIT_BYTES),
      config.retentionDays,
      clock,
      logger,
      config.node,
      deps.journal.nodes,
    ),
});
