import type { Command } from 'commander';
import { examples, invocation, positiveInt } from '../command-kit.ts';
import { print } from '../output.ts';

/** keys cancel-destroy / trim: taking back a scheduled destruction, erasing old versions. */
export function registerKeyDestruction(keys: Command): void {
  examples(
    keys
      .command('cancel-destroy')
      .description('Cancel a scheduled destruction (Humans only); the key serves again')
      .argument('<id>', 'key id')
      .action(async (id: string, _opts, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.cancelDestroy(id), globals, ['state']);
      }),
    'svc keys cancel-destroy 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11',
  );

  examples(
    keys
      .command('trim')
      .description('Erase for good every version below --min-version (cannot be undone)')
      .argument('<id>', 'key id')
      .requiredOption(
        '--min-version <n>',
        'the lowest version to keep, 2..current version',
        positiveInt('--min-version'),
      )
      .action(async (id: string, opts: { minVersion: number }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.trimKey(id, opts.minVersion), globals);
      }),
    'svc keys trim 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 --min-version 3',
  );
}
