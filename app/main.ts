import { warnUnknownVariables } from '../config/unknown-variables.ts';
import { PreflightRefused } from '../kernel/boot.ts';
import { createStderrLogger } from '../kernel/logger.ts';
import { startTracing } from '../kernel/observability/otel.ts';
import { parseServerCommandLine, ServerUsageError, USAGE, type ServerCommand } from './command-line.ts';
import { issueHumanToken } from './commands/issue-token.ts';
import { replayDeadLetterFiles } from './commands/replay-dead-letters.ts';
import { rewrap } from './commands/rewrap.ts';
import { runClusterPrimary } from './cluster/primary.ts';
import { joinCluster } from './cluster/worker.ts';
import { resolveConfiguration, startService, VERSION } from './start.ts';

/**
 * The process entry point: `npm start -- [--config FILE] [--print-config | --version | --help] [rewrap |
 * replay-dead-letters [--sink NAME]]`.
 */
async function main(): Promise<void> {
  // Everything the service writes (SQLite files and their WAL, the KEK file, dead letters, sockets) is
  // for its own user only: files 0600, directories 0700.
  process.umask(0o077);
  let command: ServerCommand;
  try {
    command = parseServerCommandLine(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof ServerUsageError)) throw err;
    process.stderr.write(`svc-kms: ${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (command.kind === 'help') return void process.stdout.write(USAGE);
  if (command.kind === 'version') return void process.stdout.write(`svc-kms ${VERSION}\n`);
  const logger = createStderrLogger();
  if (command.kind === 'rewrap') {
    await rewrap(command.argv, process.env, logger, (line) => process.stdout.write(`${line}\n`));
    process.exit(0);
  }
  if (command.kind === 'issue-token') {
    await issueHumanToken(command.argv, command.request, process.env, logger, (line) =>
      process.stdout.write(`${line}\n`),
    );
    process.exit(0);
  }
  if (command.kind === 'replay-dead-letters') {
    const allDelivered = await replayDeadLetterFiles(command.argv, command.sink, process.env, logger, (line) =>
      process.stdout.write(`${line}\n`),
    );
    process.exit(allDelivered ? 0 : 1);
  }
  if (command.kind === 'print-config') {
    const { config, unknownVariables } = await resolveConfiguration(command.argv, process.env);
    warnUnknownVariables(unknownVariables, logger);
    process.stdout.write(`${config.redacted()}\n`);
    return;
  }
  // server.workers above 1: this process only supervises the workers (app/cluster/), which run what follows.
  if (await runClusterPrimary(command.argv, process.env, logger)) return;
  const worker = joinCluster(logger);
  const log = worker?.logger ?? logger;
  // The OpenTelemetry SDK reads the process environment (OTEL_*), so the process starts it, not startService.
  const tracing = await startTracing(process.env, log);
  const kernel = await startService({
    argv: command.argv,
    env: process.env,
    logger: log,
    tracer: tracing.tracer,
    worker,
  });
  if (!worker)
    logger.info('listening', { protocol: kernel.protocol, host: kernel.address!.address, port: kernel.address!.port });

  // SIGHUP: renewed certificate files are picked up without a restart.
  process.on('SIGHUP', () => {
    try {
      if (kernel.reloadTls()) log.info('TLS certificate files reloaded');
    } catch (err) {
      log.error('TLS reload failed; the previous certificate stays in use', { error: (err as Error).message });
    }
  });
  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return; // a second signal while stopping changes nothing
    signalled = true;
    log.info('shutting down', { signal });
    kernel
      .stop()
      .then(() => tracing.shutdown())
      .then(
        () => process.exit(0),
        (err) => {
          log.error('shutdown failed', { error: (err as Error).message });
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  worker?.serving(kernel, shutdown);
}

main().catch((err: unknown) => {
  const message =
    err instanceof PreflightRefused ? 'boot refused by preflight (see the findings above)' : (err as Error).message;
  process.stderr.write(`svc-kms: ${message}\n`);
  process.exit(1);
});
