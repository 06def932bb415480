import { parseArgs } from 'node:util';
import { humanTokenRequest, type HumanTokenRequest } from './commands/human-token-request.ts';

/** What the server's own command line asks for. */
export type ServerCommand =
  | { kind: 'serve'; argv: string[] }
  | { kind: 'print-config'; argv: string[] }
  | { kind: 'rewrap'; argv: string[] }
  | { kind: 'replay-dead-letters'; argv: string[]; sink?: string }
  | { kind: 'issue-token'; argv: string[]; request: HumanTokenRequest }
  | { kind: 'help' }
  | { kind: 'version' };

export const USAGE = `Usage: npm start -- [options] [command]
       node dist/server/app/main.js [options] [command]   (npm run dev: the sources, through tsx)

Runs the svc-kms service. Every setting is also an SVC_* environment variable
(docs/config.md); the config file is JSON or YAML.

Options:
  --config PATH    read settings from this file (also SVC_CONFIG_FILE)
  --print-config   print the effective configuration, secrets hidden, and exit
  --version        print the version and exit
  --help           print this help and exit

Commands:
  (none)           start the service and listen (http.host, http.port)
  rewrap           re-wrap every key-wrapping key under the current root-of-trust KEK,
                   without opening HTTP, then exit
  replay-dead-letters [--sink NAME]
                   deliver the events in the audit sinks' dead-letter files again (every
                   secondary sink, or the one named), without opening HTTP, then exit;
                   exits 1 when some could not be delivered (they are dead-lettered anew)
  issue-token --subject NAME [--groups A,B] [--ttl 8h]
                   auth.kind hmac only: print a Human token for NAME on stdout, signed
                   with auth.hmacSecret; --ttl in s, m, h or d, 1m to 24h (default 1h)

Exit codes: 0 done, 1 the service could not start or stopped on an error, 2 usage error.
`;

export class ServerUsageError extends Error {}

/**
 * Parses argv strictly: an unknown flag, a flag without its value or an unknown command is a usage
 * error, so a typo never starts a server on defaults. The argv handed on keeps --config for the
 * configuration loader.
 */
export function parseServerCommandLine(argv: string[]): ServerCommand {
  let parsed: ReturnType<typeof parseServerArgs>;
  try {
    parsed = parseServerArgs(argv);
  } catch (err) {
    throw new ServerUsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  if (values.config === '') throw new ServerUsageError('--config needs a file path');
  const forward = values.config === undefined ? [] : ['--config', values.config];
  const [command, ...rest] = positionals;
  if (rest.length) throw new ServerUsageError(`unexpected argument "${rest[0]}"`);
  if (command !== undefined && command !== 'rewrap' && command !== 'replay-dead-letters' && command !== 'issue-token')
    throw new ServerUsageError(`unknown command "${command}"`);
  const tokenFlags = (['subject', 'groups', 'ttl'] as const).filter((flag) => values[flag] !== undefined);
  if (tokenFlags.length && command !== 'issue-token')
    throw new ServerUsageError(`--${tokenFlags[0]} goes only with issue-token`);
  if (values.sink !== undefined && command !== 'replay-dead-letters')
    throw new ServerUsageError('--sink goes only with replay-dead-letters');
  if (values.sink === '') throw new ServerUsageError('--sink needs a sink name');
  if (command !== undefined && values['print-config'])
    throw new ServerUsageError(`--print-config does not go with ${command}`);
  if (command === 'replay-dead-letters')
    return { kind: 'replay-dead-letters', argv: forward, ...(values.sink === undefined ? {} : { sink: values.sink }) };
  if (command === 'rewrap') return { kind: 'rewrap', argv: forward };
  if (command === 'issue-token') {
    try {
      return { kind: 'issue-token', argv: forward, request: humanTokenRequest(values) };
    } catch (err) {
      throw new ServerUsageError((err as Error).message);
    }
  }
  return { kind: values['print-config'] ? 'print-config' : 'serve', argv: forward };
}

const parseServerArgs = (argv: string[]) =>
  parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: 'string' },
      'print-config': { type: 'boolean' },
      version: { type: 'boolean' },
      help: { type: 'boolean' },
      sink: { type: 'string' },
      subject: { type: 'string' },
      groups: { type: 'string' },
      ttl: { type: 'string' },
    },
  });
