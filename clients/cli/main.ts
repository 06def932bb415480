import { CommanderError } from 'commander';
import { isSvcApiError } from '../sdk/index.ts';
import { EXIT, exitCodeFor, UsageError } from './exit-codes.ts';
import { buildProgram } from './program.ts';

/** `svc`: runs one command and sets its exit code (exit-codes.ts). */
async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has already printed the message (or the help, or the version).
      const shown =
        err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version';
      process.exitCode = shown ? EXIT.ok : EXIT.usage;
      return;
    }
    process.exitCode = exitCodeFor(err);
    process.stderr.write(`${describe(err)}\n`);
  }
}

function describe(err: unknown): string {
  if (isSvcApiError(err))
    return `svc: ${err.code}${err.status ? ` (HTTP ${err.status})` : ''}: ${err.message} [request ${err.requestId}]`;
  if (err instanceof UsageError) return `svc: usage: ${err.message} (add --help for usage and examples)`;
  return `svc: ${(err as Error)?.message ?? String(err)}`;
}

/**
 * A reader that stops early (`svc --help | head -1`, `svc audit tail --follow | head`) closes the pipe:
 * that ends the command quietly, as it does for any Unix filter, instead of a stack trace.
 */
function endQuietlyWhenThePipeCloses(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
    throw err;
  });
}

endQuietlyWhenThePipeCloses(process.stdout);
endQuietlyWhenThePipeCloses(process.stderr);
await main(process.argv);
