import { definePlugin, devGradeFinding, journalPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { MemoryJournal } from './memory-journal.ts';

export default definePlugin({
  id: 'journal-memory',
  apiVersion: KERNEL_API_VERSION,
  provides: journalPort,
  kind: 'in-memory',
  description: 'process-local journal, lost on restart',
  preflight: (_config, env) => [
    devGradeFinding(
      'journal.kind',
      env.exposed,
      'journal.kind is in-memory: every key is lost when the process stops',
      'set SVC_JOURNAL_KIND=rdb-embedded (one node) or rdb-server-1 (several nodes)',
    ),
  ],
  create: () => new MemoryJournal(),
});
