import { parentPort, workerData } from 'node:worker_threads';
import { serveFanoutThread } from '../kernel/audit/fanout-thread-host.ts';
import { TAKEN_COUNTER } from '../kernel/audit/fanout-thread-messages.ts';
import { createStderrLogger, type LogLevel } from '../kernel/logger.ts';
import type { LoadedValues } from '../config/schema.ts';
import { loadThirdPartyPlugins } from '../kernel/plugin-loader.ts';
import { systemClock } from '../kernel/ports/clock.ts';
import type { Deployment } from '../kernel/settings/deployment.ts';
import { EXTENSION_PORTS } from './catalogue.ts';
import { selectPlugins } from './compose.ts';

/** What startService hands the audit fan-out thread (audit.fanoutThread). */
export interface FanoutThreadData {
  config: LoadedValues;
  deployment: Deployment;
  /**
   * The config file's `plugins` entries that are secondary sinks, and the folder they are relative to: the thread loads
   * them itself.
   */
  plugins: string[];
  baseDir: string;
  /** This node's id, and its worker's name when it is one of several. */
  node: string;
  worker?: string;
}

// The thread's entry: the same plugin choice as the node's, of which only the secondary sinks start here.
// It gets the whole validated configuration, of which each sink plugin receives its own settings, as on the node.
const data = workerData as FanoutThreadData;
const logger = createStderrLogger(data.config.log.level as LogLevel);
logger.configure({ node: data.node, worker: data.worker ? `${data.worker}/audit-fanout` : 'audit-fanout' });
const thirdParty = await loadThirdPartyPlugins(data.plugins, data.baseDir, EXTENSION_PORTS);
await serveFanoutThread({
  plugins: selectPlugins(data.config, data.deployment, thirdParty),
  config: data.config,
  deployment: data.deployment,
  logger,
  clock: systemClock,
  port: parentPort!,
  taken: (workerData as Record<string, unknown>)[TAKEN_COUNTER] as BigInt64Array,
});
