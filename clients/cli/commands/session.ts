import type { Command } from 'commander';
import { SvcClient } from '../../sdk/index.ts';
import { examples } from '../command-kit.ts';
import { configPath, writeLogin } from '../config-file.ts';
import { clientTls, type GlobalOptions } from '../connection.ts';
import { UsageError } from '../exit-codes.ts';
import { print } from '../output.ts';
import { CLI_VERSION } from '../version.ts';

/** version, login. */
export function registerSessionCommands(program: Command): void {
  examples(
    program
      .command('version')
      .description('Print the version of this client')
      .action((_opts, cmd: Command) => {
        print({ svc: CLI_VERSION, node: process.version }, cmd.optsWithGlobals<GlobalOptions>(), ['svc']);
      }),
    'svc version',
  );

  examples(
    program
      .command('login')
      .description(`Remember a server and who you are there, in ${configPath()} (mode 0600)`)
      .addHelpText(
        'after',
        '\nUses the global --server and one of --user (dev mode, with --groups) ' +
          'or --token; checks that the server answers first.\nLater commands use ' +
          'it unless flags or SVC_SERVER / SVC_USER / SVC_TOKEN say otherwise.',
      )
      .action(async (_opts, cmd: Command) => {
        const g = cmd.optsWithGlobals<GlobalOptions>();
        const server = g.server ?? process.env.SVC_SERVER;
        const user = g.user ?? process.env.SVC_USER;
        const token = g.token ?? process.env.SVC_TOKEN;
        if (!server) throw new UsageError('login needs --server URL (or SVC_SERVER)');
        if ((user === undefined) === (token === undefined))
          throw new UsageError('login needs one of --user NAME and --token JWT');
        await new SvcClient({ server, retry: { retries: 0 }, tls: clientTls(g) }).health();
        const groups = g.groups
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const file = configPath();
        writeLogin(
          file,
          token !== undefined ? { server, token } : { server, user, ...(groups?.length ? { groups } : {}) },
        );
        print({ loggedIn: server, as: user ?? 'token', config: file }, g);
      }),
    'svc login --server http://127.0.0.1:8080 --user alice',
    'svc login --server https://kms.example.com --token "$(cat ~/.kms-token)"',
  );
}
