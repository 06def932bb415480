import { definePlugin, journalPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { sqliteFile } from '../../sql-support/config.ts';
import { sqlitePath } from '../../sql-support/connection-url.ts';
import { sqliteKnexSettings } from '../../sql-support/sqlite-connection.ts';
import { KnexJournal } from './knex-journal.ts';

export default definePlugin({
  id: 'journal-sqlite',
  apiVersion: KERNEL_API_VERSION,
  provides: journalPort,
  kind: 'rdb-embedded',
  description: 'SQLite file journal (one node)',
  settings: sqliteFile,
  // Several workers of one node write the file together: each then re-checks its cached key state before use.
  configure: ({ rdbEmbedded }, { workers }) => ({ file: sqlitePath(rdbEmbedded.jdbcUrl), shared: workers > 1 }),
  create: ({ config, logger }) => new KnexJournal(sqliteKnexSettings(config.file, logger, config.shared)),
});
