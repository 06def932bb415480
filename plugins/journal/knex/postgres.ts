import { Type } from '@sinclair/typebox';
import { definePlugin, defineSettings, journalPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { postgresServer } from '../../sql-support/config.ts';
import { PostgresChangeStamp } from '../../sql-support/postgres-change-stamp.ts';
import { postgresSettings } from '../../sql-support/server-connection.ts';
import { KnexJournal } from './knex-journal.ts';

const settings = defineSettings(
  Type.Object({
    ...postgresServer.properties,
    journal: Type.Object({
      keyChanges: Type.Union([Type.Literal('checked'), Type.Literal('notified')], {
        description:
          "How a node learns that another node changed a key it has cached (rdb-server-1 only). 'checked': each " +
          "use first reads the key's last sequence number (one query per event-loop turn), so a change another node " +
          "acknowledged is seen at the very next use. 'notified': the cache is trusted until PostgreSQL notifies a " +
          'key event (LISTEN/NOTIFY, a trigger the first such node installs), which saves that query but sees a ' +
          'change once its notification arrives, usually within a millisecond of the commit, and within 3 s if the ' +
          'notification connection dies silently; one more connection per process (docs/architecture.md).',
        default: 'checked',
        env: 'SVC_JOURNAL_KEY_CHANGES',
      }),
    }),
  }),
);

export default definePlugin({
  id: 'journal-postgres',
  apiVersion: KERNEL_API_VERSION,
  provides: journalPort,
  kind: 'rdb-server-1',
  description: 'PostgreSQL journal (several nodes may share it)',
  settings,
  configure: (values) => ({ settings: postgresSettings(values), notified: values.journal.keyChanges === 'notified' }),
  create: ({ config, logger }) =>
    new KnexJournal(
      config.notified
        ? { ...config.settings, changeStamp: () => PostgresChangeStamp.listening(config.settings, logger) }
        : config.settings,
    ),
});
