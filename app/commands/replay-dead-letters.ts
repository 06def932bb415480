import type { Logger } from '../../kernel/ports/logger.ts';
import { startService } from '../start.ts';

/**
 * `npm start -- replay-dead-letters [--sink NAME]`: with the service's own configuration, starts every
 * plugin without opening HTTP, offers each secondary sink's dead-lettered events to that sink again,
 * waits until each was delivered or dead-lettered anew, prints one line per sink and stops. Returns
 * whether everything was delivered (the process exits 1 otherwise, also when a dead-letter file that other
 * users could write was moved aside unread).
 */
export async function replayDeadLetterFiles(
  argv: string[],
  sink: string | undefined,
  env: NodeJS.ProcessEnv,
  logger: Logger,
  print: (line: string) => void,
): Promise<boolean> {
  const kernel = await startService({ argv, env, logger, listen: false, command: 'replay-dead-letters' });
  try {
    const outcomes = await kernel.audit.replayDeadLetters(sink);
    if (outcomes.length === 0) print('no secondary audit sink is configured: nothing to replay');
    for (const o of outcomes) {
      const unreadable = o.unreadable ? `; ${o.unreadable} unreadable line(s) kept in ${o.file}.unreadable` : '';
      const untrusted = o.untrusted.length ? `; not replayed, writable by other users: ${o.untrusted.join(', ')}` : '';
      print(
        `${o.sink}: ${o.replayed} replayed, ${o.delivered} delivered, ${o.deadLettered} dead-lettered again (${o.file})${unreadable}${untrusted}`,
      );
    }
    return outcomes.every((o) => o.deadLettered === 0 && o.unreadable === 0 && o.untrusted.length === 0);
  } finally {
    await kernel.stop();
  }
}
