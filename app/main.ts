import { PreflightRefused } from '../kernel/boot.ts';
import { createStderrLogger } from '../kernel/logger.ts';
import { startTracing } from '../kernel/observability/otel.ts';
import { rewrap } from './commands/rewrap.ts';
import { resolveConfiguration, startService } from './start.ts';

/** The process entry point: `npm start [-- --config FILE] [-- --print-config]`. */
async function main(): Promise<void> {
  // Everything the service writes (SQLite files and their WAL, the KEK file, dead letters, sockets) is
  // for its own user only: files 0600, directories 0700.
  process.umask(0o077);
  const argv = process.argv.slice(2);
  const logger = createStderrLogger();
  if (argv[0] === 'rewrap') {
    await rewrap(argv.slice(1), process.env, logger, (line) => process.stdout.write(`${line}\n`));
    process.exit(0);
  }
  if (argv.includes('--print-config')) {
    const { config } = await resolveConfiguration(argv, process.env);
    process.stdout.write(`${config.redacted()}\n`);
    return;
  }
  // The OpenTelemetry SDK reads the process environment (OTEL_*), so the process starts it, not startService.
  const tracing = await startTracing(process.env, logger);
  const kernel = await startService({ argv, env: process.env, logger, tracer: tracing.tracer });
  logger.info('listening', { host: kernel.address!.address, port: kernel.address!.port });

  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return; // a second signal while stopping changes nothing
    signalled = true;
    logger.info('shutting down', { signal });
    kernel.stop().then(() => tracing.shutdown()).then(
      () => process.exit(0),
      (err) => {
        logger.error('shutdown failed', { error: (err as Error).message });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  const message = err instanceof PreflightRefused ? 'boot refused by preflight (see the findings above)' : (err as Error).message;
  process.stderr.write(`svc-kms: ${message}\n`);
  process.exit(1);
});
