import { Command, Option } from 'commander';
import { registerAccessKeyCommands } from './commands/access-keys.ts';
import { registerAdvisorCommands } from './commands/advisor.ts';
import { registerAgentCommands } from './commands/agents.ts';
import { registerAuditCommands } from './commands/audit.ts';
import { registerKeyAliases } from './commands/keys-aliases.ts';
import { registerKeyAttributes } from './commands/keys-attributes.ts';
import { registerKeyCrypto } from './commands/keys-crypto.ts';
import { registerKeyDataKeys } from './commands/keys-data-keys.ts';
import { registerKeyLifecycle } from './commands/keys-lifecycle.ts';
import { registerKeyDestruction } from './commands/keys-destruction.ts';
import { registerKeyTransfer } from './commands/keys-transfer.ts';
import { registerMcpCommand } from './commands/mcp.ts';
import { registerPolicyCommands } from './commands/policy.ts';
import { registerSessionCommands } from './commands/session.ts';
import { examples } from './command-kit.ts';
import { registerCompletionCommands } from './completion.ts';
import { DEFAULT_SERVER } from './connection.ts';
import { OUTPUT_FORMATS } from './output.ts';
import { CLI_VERSION } from './version.ts';

/** The whole `svc` command tree. Settings made here before `.command()` are inherited by every subcommand. */
export function buildProgram(): Command {
  const program = new Command('svc')
    .description('Command-line client of svc-kms: keys, cryptography, agents and the audit trail over the REST API.')
    .version(CLI_VERSION, '-V, --version', 'print the client version')
    .option('--server <url>', `service URL (env SVC_SERVER, else svc login, else ${DEFAULT_SERVER})`)
    .option('--user <name>', 'dev-mode principal, sent as X-Svc-User (env SVC_USER)')
    .option('--groups <list>', 'dev-mode groups, comma-separated, sent as X-Svc-Groups')
    .option('--token <jwt>', 'bearer token (env SVC_TOKEN)')
    .option('--json', 'print JSON instead of text (the same as -o json)')
    .addOption(
      new Option(
        '-o, --output <format>',
        "json (the API's fields), table (aligned columns) or value (bare values, one a line, for scripts)",
      ).choices(OUTPUT_FORMATS),
    )
    .option('--timeout <seconds>', 'give up on a request after this long (default 10)')
    .option('--ca-file <pem>', 'CA certificate(s) of an https server with a private CA (env SVC_CA_FILE)')
    .option('--cert-file <pem>', 'client certificate, for a server that requires mutual TLS (env SVC_CLIENT_CERT_FILE)')
    .option('--key-file <pem>', "the client certificate's private key (env SVC_CLIENT_KEY_FILE)")
    .option('--model <name>', 'the model the calls act for, sent as X-Svc-Model and audited (env SVC_MODEL)')
    .option('--prompt-id <id>', 'the prompt the calls act for, sent as X-Svc-Prompt-Id and audited (env SVC_PROMPT_ID)')
    .exitOverride()
    .showHelpAfterError('(add --help for usage and examples)')
    .showSuggestionAfterError();
  program.addHelpText(
    'after',
    [
      '',
      'Exit codes: 0 success, 1 API or network error, 2 usage error, 3 verify found the signature invalid,',
      '4 not found, 5 permission denied. Global flags may come before or after the command.',
      '',
      'Example:',
      '  $ svc login --server http://127.0.0.1:8080 --user alice',
      '  $ svc keys create --name payments --algorithm AES',
    ].join('\n'),
  );

  registerSessionCommands(program);
  const keys = examples(
    program.command('keys').description('Create and manage keys; sign, verify, encrypt, decrypt, wrap and unwrap'),
    'svc keys create --name payments --algorithm AES',
    'svc keys list',
  );
  registerKeyLifecycle(keys);
  registerKeyCrypto(keys);
  registerKeyDataKeys(keys);
  registerKeyDestruction(keys);
  registerKeyTransfer(keys);
  registerKeyAttributes(keys);
  registerKeyAliases(keys);
  registerAgentCommands(program);
  registerAuditCommands(program);
  registerPolicyCommands(program);
  registerAccessKeyCommands(program);
  registerAdvisorCommands(program);
  registerMcpCommand(program);
  registerCompletionCommands(program);
  program.addHelpText('after', () => allCommandsHelp(program));
  return program;
}

/** Every runnable command ("keys create" and so on) with its description, for the top-level help. */
function leafCommands(cmd: Command, prefix = ''): Array<[string, string]> {
  // Hidden commands (the completion scripts' __complete) are for programs, not for people.
  return cmd.commands
    .filter((c) => !(c as Command & { _hidden?: boolean })._hidden)
    .flatMap((c): Array<[string, string]> => {
      const name = `${prefix}${c.name()}`;
      return c.commands.length ? leafCommands(c, `${name} `) : [[name, c.description()]];
    });
}

function allCommandsHelp(program: Command): string {
  const rows = leafCommands(program);
  const width = Math.max(...rows.map(([name]) => name.length));
  return `\nAll commands:\n${rows.map(([name, description]) => `  svc ${name.padEnd(width)}  ${description}`).join('\n')}\n`;
}
