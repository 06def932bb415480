import { definePlugin, journalPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { mysqlServer } from '../../sql-support/config.ts';
import { mysqlSettings } from '../../sql-support/server-connection.ts';
import { KnexJournal } from './knex-journal.ts';

export default definePlugin({
  id: 'journal-mysql',
  apiVersion: KERNEL_API_VERSION,
  provides: journalPort,
  kind: 'rdb-server-2',
  description: 'MySQL/MariaDB journal (several nodes may share it)',
  settings: mysqlServer,
  configure: (settings) => ({ settings: mysqlSettings(settings) }),
  create: ({ config }) => new KnexJournal(config.settings),
});
