import { randomUUID } from 'node:crypto';
import { SYSTEM_PRINCIPAL } from '../../kernel/model/index.ts';
import type { Logger } from '../../kernel/ports/logger.ts';
import { startService } from '../start.ts';

/**
 * `npm start -- rewrap`: with the service's own configuration, starts every plugin without opening HTTP,
 * re-wraps every key-wrapping key under the current KEK (the RewrapKeys operation, audited as svc-system),
 * prints how many it re-wrapped and stops. It may run beside serving nodes: it writes its audit rows under
 * a node id of its own (`commandNodeId`), so their chains keep one writer each. Moving from the local root of trust to
 * cloud-kms is: configure
 * cloud-kms, list the local KEK as previous, run this.
 */
export async function rewrap(
  argv: string[],
  env: NodeJS.ProcessEnv,
  logger: Logger,
  print: (line: string) => void,
): Promise<void> {
  const kernel = await startService({ argv, env, logger, listen: false, command: 'rewrap' });
  try {
    const result = (await kernel.pipeline.run(
      'RewrapKeys',
      {},
      { principal: SYSTEM_PRINCIPAL, requestId: `rewrap-${randomUUID()}`, door: 'internal' },
    )) as { rewrapped: number; kekId: string };
    print(`rewrapped ${result.rewrapped} key-wrapping key(s) under ${result.kekId}`);
  } finally {
    await kernel.stop();
  }
}
