import cluster from 'node:cluster';
import type { Logger } from '../../kernel/ports/logger.ts';
import type { LoadedValues } from '../../config/schema.ts';
import { configuredWorkers } from '../../config/workers.ts';
import { resolveConfiguration } from '../start.ts';
import { unshareableSettings } from './shareable.ts';
import { WorkerSupervisor } from './supervisor.ts';

/**
 * Runs this process as the primary of a node with several workers when `server.workers` asks for more
 * than one: it checks that the configuration can be shared by several processes (refusing, naming each
 * setting, when not), forks and supervises the workers, and on SIGTERM or SIGINT drains them all. It
 * serves nothing itself. Returns false, having done nothing, when the process should serve by itself:
 * one worker (the default), or this process is one of the workers.
 */
export async function runClusterPrimary(argv: string[], env: NodeJS.ProcessEnv, logger: Logger): Promise<boolean> {
  if (!cluster.isPrimary) return false;
  const { config } = await resolveConfiguration(argv, env);
  const values = config.values as LoadedValues;
  const count = configuredWorkers(values);
  if (count <= 1) return false;
  const problems = unshareableSettings(values, count);
  if (problems.length) throw new Error(`configuration cannot run ${count} workers:\n  - ${problems.join('\n  - ')}`);

  const supervisor = new WorkerSupervisor(count, logger);
  let signalled = false;
  // A worker gets the HTTP grace, then each plugin's stop bound, before the primary kills it.
  const killAfterMs = Number(values.http.shutdownGraceMs) + 30_000;
  const shutdown = (signal: NodeJS.Signals) => {
    if (signalled) return;
    signalled = true;
    logger.info('shutting down', { signal, workers: count });
    void supervisor.drain('SIGTERM', killAfterMs).then((clean) => process.exit(clean ? 0 : 1));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGHUP', () => supervisor.forward('SIGHUP'));

  const serving = await supervisor.start();
  logger.info('listening', { ...serving, workers: count, pid: process.pid });
  return true;
}
