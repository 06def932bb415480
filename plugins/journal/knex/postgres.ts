import { definePlugin, journalPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { postgresServer } from '../../sql-support/config.ts';
import { postgresSettings } from '../../sql-support/server-connection.ts';
import { KnexJournal } from './knex-journal.ts';

export default definePlugin({
  id: 'journal-postgres',
  apiVersion: KERNEL_API_VERSION,
  provides: journalPort,
  kind: 'rdb-server-1',
  description: 'PostgreSQL journal (several nodes may share it)',
  settings: postgresServer,
  configure: (settings) => ({ settings: postgresSettings(settings) }),
  create: ({ config }) => new KnexJournal(config.settings),
});
