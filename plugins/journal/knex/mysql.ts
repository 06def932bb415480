import { serverConnection } from '../../../config/urls.ts';
import { definePlugin, KERNEL_API_VERSION } from '../../../kernel/define-plugin.ts';
import { journalPort } from '../../../kernel/ports/journal.ts';
import { serverKnexSettings } from '../../sql-support/server-connection.ts';
import { KnexJournal } from './knex-journal.ts';

export default definePlugin({
  id: 'journal-mysql',
  apiVersion: KERNEL_API_VERSION,
  provides: journalPort,
  kind: 'rdb-server-2',
  description: 'MySQL/MariaDB journal (several nodes may share it)',
  configSlice: (all: Record<string, any>) => ({
    connection: serverConnection(all.rdb2.jdbcUrl, 'mysql', all.rdb2.username, all.rdb2.password),
    pool: { max: all.database.poolMax as number, acquireTimeoutMs: all.database.acquireTimeoutMs as number, bootTimeoutMs: all.database.bootTimeoutMs as number },
  }),
  create: ({ config }) => new KnexJournal(serverKnexSettings('mysql', config.connection, config.pool)),
});
