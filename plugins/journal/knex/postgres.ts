import { serverConnection } from '../../../config/urls.ts';
import { definePlugin, KERNEL_API_VERSION } from '../../../kernel/define-plugin.ts';
import { journalPort } from '../../../kernel/ports/journal.ts';
import { serverKnexSettings } from '../../sql-support/server-connection.ts';
import { KnexJournal } from './knex-journal.ts';

export default definePlugin({
  id: 'journal-postgres',
  apiVersion: KERNEL_API_VERSION,
  provides: journalPort,
  kind: 'rdb-server-1',
  description: 'PostgreSQL journal (several nodes may share it)',
  configSlice: (all: Record<string, any>) => ({
    connection: serverConnection(all.jdbc.url, 'postgresql', all.jdbc.username, all.jdbc.password),
    pool: { max: all.database.poolMax as number, acquireTimeoutMs: all.database.acquireTimeoutMs as number, bootTimeoutMs: all.database.bootTimeoutMs as number },
  }),
  create: ({ config }) => new KnexJournal(serverKnexSettings('postgresql', config.connection, config.pool)),
});
