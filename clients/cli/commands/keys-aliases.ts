import type { Command } from 'commander';
import { examples, invocation, positiveInt } from '../command-kit.ts';
import { listPrinter, print } from '../output.ts';
import type { Alias } from '../../sdk/index.ts';

const PREFIX = 'alias/';
const PAGE = 1000;

/** `billing` and `alias/billing` name the same alias: the prefix is the API's, so typing it is optional. */
export const aliasName = (name: string) => (name.startsWith(PREFIX) ? name : `${PREFIX}${name}`);

/** keys alias create / move / delete / list. */
export function registerKeyAliases(keys: Command): void {
  const alias = examples(
    keys
      .command('alias')
      .description('Name keys with aliases (alias/NAME), usable wherever a key id is: one alias names one key'),
    'svc keys alias create billing 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11',
    'svc keys encrypt alias/billing --message hello',
  );
  examples(
    alias
      .command('create')
      .description('Create an alias for a key; refused (exit 1, IllegalOperation) when the alias already names one')
      .argument('<alias>', 'alias/NAME, or NAME')
      .argument('<key>', 'key id (or another alias)')
      .action(async (name: string, key: string, _opts, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.putAlias(aliasName(name), key, { createOnly: true }), globals);
      }),
    'svc keys alias create billing 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11',
  );
  examples(
    alias
      .command('move')
      .description('Point an alias at another key (previousKeyId names the key it left); creates it when missing')
      .argument('<alias>', 'alias/NAME, or NAME')
      .argument('<key>', 'the key it names from now on')
      .addHelpText(
        'after',
        '\nMoving needs AddAttribute on both keys. Calls through the alias use the new key from their next call.',
      )
      .action(async (name: string, key: string, _opts, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.putAlias(aliasName(name), key), globals);
      }),
    'svc keys alias move billing 6a1d9e3c-2b4f-4e8a-b1c7-0d9e8f7a6b5c',
  );
  examples(
    alias
      .command('delete')
      .description('Delete an alias (the key it named is unchanged); exit 4 when it names no key')
      .argument('<alias>', 'alias/NAME, or NAME')
      .action(async (name: string, _opts, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.deleteAlias(aliasName(name)), globals);
      }),
    'svc keys alias delete billing',
  );
  examples(
    alias
      .command('list')
      .description('List aliases by name: every one, or those of one key (only aliases of keys you may read)')
      .option('--key <key>', "only this key's aliases (a key id or an alias)")
      .option('--limit <n>', 'at most this many aliases (default: all)', positiveInt('--limit'))
      .action(async (opts: { key?: string; limit?: number }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        const out = listPrinter<Alias>(globals, {
          columns: [
            ['NAME', (a) => a.name],
            ['KEY', (a) => a.keyId],
            ['CREATED', (a) => a.createdAt],
          ],
          value: (a) => a.name,
          text: (a) => [a.name, a.keyId, a.createdAt].join('  '),
        });
        const max = opts.limit ?? Number.POSITIVE_INFINITY;
        let given = 0;
        const query = { ...(opts.key === undefined ? {} : { keyId: opts.key }), limit: Math.min(PAGE, max) };
        for await (const page of client.aliasPages(query)) {
          for (const a of page.slice(0, max - given)) out.add(a);
          given = Math.min(max, given + page.length);
          if (given >= max) break;
        }
        out.flush();
      }),
    'svc keys alias list',
    'svc keys alias list --key 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 -o value',
  );
}
