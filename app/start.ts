import type { Tracer } from '@opentelemetry/api';
import path from 'node:path';
import { configFilePath, readConfigFile } from '../config/file.ts';
import { loadConfig } from '../config/load.ts';
import { commandNodeId, nodeIdOf } from '../config/node.ts';
import {
  refuseUnknownVariables,
  unknownVariables,
  warnUnknownVariables,
  withUnknownVariables,
} from '../config/unknown-variables.ts';
import type { LoadedValues } from '../config/schema.ts';
import { wholeSchema } from '../config/whole-schema.ts';
import { workerNodeId } from '../config/workers.ts';
import type { NodeWorkers } from '../kernel/http/node-workers.ts';
import { bootKernel, type RunningKernel } from '../kernel/boot.ts';
import { auditFanoutPort } from '../kernel/ports/audit-sink.ts';
import { siblingModule } from '../kernel/threads/module-worker.ts';
import { workerName } from './cluster/messages.ts';
import type { FanoutThreadData } from './fanout-thread-main.ts';
import { packageVersion } from '../kernel/files/package-root.ts';
import { createStderrLogger, isServiceLogger } from '../kernel/logger.ts';
import { loadThirdPartyPlugins } from '../kernel/plugin-loader.ts';
import { systemClock, type Clock } from '../kernel/ports/clock.ts';
import type { Logger } from '../kernel/ports/logger.ts';
import type { PreflightMode } from '../kernel/preflight.ts';
import { BUILTIN, EXTENSION_PORTS } from './catalogue.ts';
import { selectPlugins } from './compose.ts';
import { deploymentOf } from './deployment.ts';

export const VERSION: string = packageVersion(import.meta.url);
const FANOUT_THREAD = siblingModule(import.meta.url, 'fanout-thread-main');

export interface StartOptions {
  argv: string[];
  env: NodeJS.ProcessEnv;
  logger?: Logger;
  clock?: Clock;
  /** The tracer of the OpenTelemetry SDK the process started (app/main.ts); spans are no-ops without it. */
  tracer?: Tracer;
  /** false: start the plugins without an HTTP listener (the server's own commands). */
  listen?: boolean;
  /** The server command being run (rewrap ...): it writes under a node id of its own, `commandNodeId`. */
  command?: string;
  print?: (text: string) => void;
  /**
   * Set in a worker of a node with several (app/cluster/worker.ts): its slot names its node id, and /metrics and
   * /readyz speak for the node.
   */
  worker?: { slot: number; workers: NodeWorkers };
}

/** Everything the config decides, before anything starts: the validated values and the schema they came from. */
export async function resolveConfiguration(argv: string[], env: NodeJS.ProcessEnv) {
  const file = readConfigFile(configFilePath(argv, env));
  const baseDir = file.path ? path.dirname(file.path) : process.cwd();
  const thirdParty = await loadThirdPartyPlugins(file.values.plugins, baseDir, EXTENSION_PORTS);
  const schema = wholeSchema([...BUILTIN, ...thirdParty.map((t) => t.manifest)]);
  const unknown = unknownVariables(env, schema);
  // The fan-out thread loads the third-party sinks again, and only those.
  const sinkSources = thirdParty.filter((t) => t.manifest.provides.id === auditFanoutPort.id).map((t) => t.source);
  const config = withUnknownVariables(() => loadConfig(schema, file, env), unknown);
  refuseUnknownVariables(unknown, env);
  return { schema, config, thirdParty, unknownVariables: unknown, pluginFiles: { plugins: sinkSources, baseDir } };
}

/** load config -> pick plugins -> preflight -> start -> listen. Throws with an operator-readable message. */
export async function startService(opts: StartOptions): Promise<RunningKernel> {
  const logger = opts.logger ?? createStderrLogger();
  const print = opts.print ?? ((text: string) => process.stderr.write(`${text}\n`));
  const {
    config,
    thirdParty,
    unknownVariables: unknown,
    pluginFiles,
  } = await resolveConfiguration(opts.argv, opts.env);
  const values = config.values as LoadedValues;
  if (opts.command) values.node.id = commandNodeId(nodeIdOf(values), opts.command);
  if (opts.worker) values.node.id = workerNodeId(nodeIdOf(values), opts.worker.slot);
  if (isServiceLogger(logger)) logger.configure({ level: values.log.level, node: nodeIdOf(values) });
  warnUnknownVariables(unknown, logger);
  const deployment = deploymentOf(values);
  const plugins = selectPlugins(values, deployment, thirdParty);
  return bootKernel({
    config: values,
    deployment,
    plugins,
    http: values.http,
    preflightMode: values.security.preflight as PreflightMode,
    logger,
    clock: opts.clock ?? systemClock,
    tracer: opts.tracer,
    rateLimit: values.rateLimit.enabled
      ? {
          requestsPerSecond: Math.max(1, values.rateLimit.requestsPerSecond),
          burst: Math.max(1, values.rateLimit.burst),
        }
      : undefined,
    detectorStateBytes: values.detectors.maxStateBytes,
    listen: opts.listen,
    version: VERSION,
    print,
    workers: opts.worker?.workers,
    // The server's own commands (listen: false) keep the sinks on their one thread: they run briefly, and a replay
    // reports per sink.
    fanoutThread:
      values.audit.fanoutThread && opts.listen !== false
        ? {
            entry: FANOUT_THREAD,
            data: {
              ...pluginFiles,
              config: values,
              deployment,
              node: nodeIdOf(values),
              worker: opts.worker && workerName(opts.worker.slot),
            } satisfies FanoutThreadData,
          }
        : undefined,
  });
}
