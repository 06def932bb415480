import type { Command } from 'commander';
import { examples, invocation } from '../command-kit.ts';
import { UsageError } from '../exit-codes.ts';
import { print } from '../output.ts';

/** `k=v` arguments into tags; a key given twice is a mistake the user should see, not a silent overwrite. */
function tagArguments(args: string[]): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const arg of args) {
    const at = arg.indexOf('=');
    if (at < 1) throw new UsageError(`tags are key=value; "${arg}" is not`);
    const name = arg.slice(0, at);
    if (Object.hasOwn(tags, name)) throw new UsageError(`tag ${name} is given twice`);
    tags[name] = arg.slice(at + 1);
  }
  return tags;
}

/** keys tag set / remove, keys disable / enable: a key's attributes beside its lifecycle state. */
export function registerKeyAttributes(keys: Command): void {
  const tag = examples(
    keys.command('tag').description("Set and remove a key's tags (key=value labels; keys list --tag finds them)"),
    'svc keys tag set 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 team=payments env=prod',
  );
  examples(
    tag
      .command('set')
      .description("Set tags on a key, merged over the key's (a tag given again takes the new value)")
      .argument('<key>', 'key id or alias')
      .argument('<tags...>', 'key=value, one or more (at most 50 per key)')
      .action(async (key: string, args: string[], _opts, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.tagKey(key, tagArguments(args)), globals, ['tags']);
      }),
    'svc keys tag set 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 team=payments env=prod',
  );
  examples(
    tag
      .command('remove')
      .description('Remove tags from a key by their keys (a key the key does not carry is ignored)')
      .argument('<key>', 'key id or alias')
      .argument('<names...>', 'tag keys, one or more')
      .action(async (key: string, names: string[], _opts, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        const comma = names.find((n) => n.includes(','));
        // The API takes the names comma-separated, and no tag key holds a comma: give each as an argument.
        if (comma !== undefined)
          throw new UsageError(`"${comma}" holds a comma: give each tag key as its own argument`);
        print(await client.untagKey(key, names), globals, ['tags']);
      }),
    'svc keys tag remove 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 env',
  );

  examples(
    keys
      .command('disable')
      .description('Pause a key (reversible): every cryptographic call and export is refused until a Human enables it')
      .argument('<key>', 'key id or alias')
      .option('--reason <reason>', 'why, kept with the key and in the audit trail')
      .action(async (key: string, opts: { reason?: string }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.disableKey(key, opts.reason), globals, ['enabled']);
      }),
    'svc keys disable 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 --reason "suspected leak"',
  );
  examples(
    keys
      .command('enable')
      .description('Enable a disabled key again (Human callers only: exit 5 for a service or an agent)')
      .argument('<key>', 'key id or alias')
      .action(async (key: string, _opts, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.enableKey(key), globals, ['enabled']);
      }),
    'svc keys enable 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11',
  );
}
