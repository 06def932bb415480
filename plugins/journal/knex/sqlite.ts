import { sqlitePath } from '../../../config/urls.ts';
import { type ConfigValues, definePlugin, journalPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { sqliteFile } from '../../sql-support/config.ts';
import type { BaseConfig } from '../../../config/schema.ts';
import { configuredWorkers } from '../../../config/workers.ts';
import { KnexJournal } from './knex-journal.ts';
import { sqliteKnexSettings } from '../../sql-support/sqlite-connection.ts';

export default definePlugin({
  id: 'journal-sqlite',
  apiVersion: KERNEL_API_VERSION,
  provides: journalPort,
  kind: 'rdb-embedded',
  description: 'SQLite file journal (one node)',
  config: sqliteFile,
  // Several workers of one node write the file together: each then re-checks its cached key state before use.
  configSlice: (all: BaseConfig & ConfigValues<typeof sqliteFile>) => ({ file: sqlitePath(all.rdbEmbedded.jdbcUrl), shared: configuredWorkers(all) > 1 }),
  create: ({ config, logger }) => new KnexJournal(sqliteKnexSettings(config.file, logger, config.shared)),
});
