import { type ConfigValues, definePlugin, journalPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { postgresFragment } from '../../sql-support/config.ts';
import { postgresSettings } from '../../sql-support/server-connection.ts';
import { KnexJournal } from './knex-journal.ts';

export default definePlugin({
  id: 'journal-postgres',
  apiVersion: KERNEL_API_VERSION,
  provides: journalPort,
  kind: 'rdb-server-1',
  description: 'PostgreSQL journal (several nodes may share it)',
  config: postgresFragment,
  configSlice: (all: ConfigValues<typeof postgresFragment>) => ({ settings: postgresSettings(all) }),
  create: ({ config }) => new KnexJournal(config.settings),
});
