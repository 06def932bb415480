import { type Command, InvalidArgumentError } from 'commander';
import { examples, invocation, pairs, positiveInt, repeatable, wholeNumber } from '../command-kit.ts';
import { listKeys, type KeyRow } from '../keys-list.ts';
import { listPrinter, outputFormat, print } from '../output.ts';
import type { Curve, KeyAlgorithm, ManagedKey, ParameterSet } from '../../sdk/index.ts';
import { UsageError } from '../exit-codes.ts';

type KeyState = ManagedKey['state'];

/** `--tag key:value` of keys list, as the API's tag=KEY:VALUE (keys create takes key=value, as tags are set). */
function tagFilter(value: string, previous: string[] = []): string[] {
  if (value.indexOf(':') < 1) throw new InvalidArgumentError('--tag takes key:value (keys create takes key=value).');
  return repeatable(value, previous);
}

/** A disabled key keeps its state but serves nothing: a list shows both. */
const stateOf = (row: KeyRow) => (row.enabled ? row.state : `${row.state} (disabled)`);

/** keys create / get / list / activate / rotate / revoke / compromise / destroy / public-key. */
export function registerKeyLifecycle(keys: Command): void {
  examples(
    keys
      .command('create')
      .description('Create a key (state PreActive, version 1)')
      .requiredOption('--name <name>', 'a label for people; need not be unique')
      .requiredOption('--algorithm <algorithm>', 'AES, HMAC, RSA, EC, EdDSA, ML-DSA or SLH-DSA')
      .option('--size-bits <bits>', 'AES 128|192|256, HMAC 256|384|512, RSA 2048|3072|4096', positiveInt('--size-bits'))
      .option('--curve <curve>', 'EC: P-256|P-384|P-521|secp256k1; EdDSA: Ed25519|Ed448')
      .option('--parameter-set <set>', 'ML-DSA: ML-DSA-44|65|87; SLH-DSA: SLH-DSA-SHA2-128s ... (Node 24 servers)')
      .option('--exportable', 'allow Humans and Services to export the material (fixed at creation)')
      .option('--tag <key=value>', 'a tag the key starts with (repeatable)', pairs('--tag'))
      .action(
        async (
          opts: {
            name: string;
            algorithm: string;
            sizeBits?: number;
            curve?: string;
            parameterSet?: string;
            exportable?: boolean;
            tag?: Record<string, string>;
          },
          cmd: Command,
        ) => {
          const { client, globals } = invocation(cmd);
          // The service checks the values and answers InvalidField naming the allowed ones.
          print(
            await client.createKey({
              name: opts.name,
              algorithm: opts.algorithm as KeyAlgorithm,
              sizeBits: opts.sizeBits,
              curve: opts.curve as Curve | undefined,
              ...(opts.parameterSet ? { parameterSet: opts.parameterSet as ParameterSet } : {}),
              ...(opts.exportable ? { exportable: true } : {}),
              ...(opts.tag ? { tags: opts.tag } : {}),
            }),
            globals,
            ['id'],
          );
        },
      ),
    'svc keys create --name payments --algorithm AES --size-bits 256',
    'svc keys create --name signer --algorithm EC --curve P-256 --json',
    'svc keys create --name firmware --algorithm ML-DSA --parameter-set ML-DSA-65',
    'svc keys create --name billing --algorithm AES --tag team=payments --tag env=prod',
  );

  examples(
    keys
      .command('get')
      .description('Show a key: state, versions, timestamps')
      .argument('<id>', 'key id')
      .action(async (id: string, _opts, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.getKey(id), globals, ['state']);
      }),
    'svc keys get 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11',
  );

  examples(
    keys
      .command('list')
      .description('List the keys you may read, newest first (every page of GET /v1/keys)')
      .option('--name <name>', 'an exact name, or a glob: * matches any run of characters (quote it in a shell)')
      .option('--state <state>', 'PreActive, Active, Deactivated, Compromised or Destroyed')
      .option('--algorithm <algorithm>', 'AES, HMAC, RSA, EC or EdDSA')
      .option(
        '--owner <subject>',
        "only keys this subject owns (a key an agent created is owned by the agent's parent)",
      )
      .option('--mine', 'only keys you own (--user, or the sub of your token)')
      .option('--created-after <time>', 'RFC 3339 date-time or a date (midnight UTC), exclusive')
      .option('--created-before <time>', 'RFC 3339 date-time or a date (midnight UTC), exclusive')
      .option('--tag <key:value>', 'only keys carrying this tag (repeatable: every one must match)', tagFilter)
      .option('--limit <n>', 'at most this many keys (default: all)', positiveInt('--limit'))
      .addHelpText(
        'after',
        [
          '',
          'The service answers only keys your policy lets you read (Get), and reads them from its journal:',
          'every key it holds, whatever the audit retention. One audit record per page (1,000 keys a page).',
        ].join('\n'),
      )
      .action(
        async (
          opts: {
            name?: string;
            state?: string;
            algorithm?: string;
            owner?: string;
            mine?: boolean;
            createdAfter?: string;
            createdBefore?: string;
            tag?: string[];
            limit?: number;
          },
          cmd: Command,
        ) => {
          const { client, globals, connection } = invocation(cmd);
          if (opts.mine && opts.owner !== undefined) throw new UsageError('give either --mine or --owner, not both');
          if (opts.mine && connection.user === undefined)
            throw new UsageError('--mine needs to know who you are: log in, or give --user or --token');
          const owner = opts.mine ? connection.user : opts.owner;
          // The service checks the values and answers InvalidField naming the allowed ones.
          const filter = {
            name: opts.name,
            state: opts.state as KeyState | undefined,
            algorithm: opts.algorithm as KeyAlgorithm | undefined,
            owner,
            createdAfter: opts.createdAfter,
            createdBefore: opts.createdBefore,
            tag: opts.tag,
          };
          const out = listPrinter<KeyRow>(globals, {
            columns: [
              ['ID', (r) => r.id],
              ['STATE', stateOf],
              ['ALGORITHM', (r) => r.algorithm],
              ['VERSION', (r) => r.currentVersion],
              ['CREATED', (r) => r.createdAt],
              ['NAME', (r) => r.name],
            ],
            value: (r) => r.id,
            text: (row) =>
              [
                row.id,
                stateOf(row).padEnd(11),
                row.algorithm.padEnd(7),
                `v${row.currentVersion}`,
                row.createdAt,
                row.name,
              ].join('  '),
          });
          for await (const row of listKeys(client, filter, opts.limit)) out.add(row);
          out.flush();
        },
      ),
    'svc keys list',
    "svc keys list --name 'payments-*' --state Active",
    'svc keys list --mine --limit 20 --json',
    'svc keys list --tag team:payments --tag env:prod -o value',
  );

  examples(
    keys
      .command('activate')
      .description('PreActive -> Active')
      .argument('<id>', 'key id')
      .action(async (id: string, _opts, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.activateKey(id), globals, ['state']);
      }),
    'svc keys activate 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11',
  );

  examples(
    keys
      .command('rotate')
      .description('Make a new version current; old versions keep verifying and decrypting')
      .argument('<id>', 'key id')
      .option('--policy <policy>', 'Manual, TimeBased:<n><s|m|h|days> or OpCountBased:<n>')
      .option('--reason <reason>', 'why, for the audit trail')
      .action(async (id: string, opts: { policy?: string; reason?: string }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.rotateKey(id, { policy: opts.policy, reason: opts.reason }), globals, ['currentVersion']);
      }),
    'svc keys rotate 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 --policy OpCountBased:1000000',
  );

  examples(
    keys
      .command('revoke')
      .description('Active -> Deactivated (no new signatures or ciphertexts; old ones still open)')
      .argument('<id>', 'key id')
      .option('--reason <reason>', 'why, for the audit trail')
      .action(async (id: string, opts: { reason?: string }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.revokeKey(id, opts.reason), globals, ['state']);
      }),
    'svc keys revoke 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 --reason "service retired"',
  );

  examples(
    keys
      .command('compromise')
      .description('Mark a key compromised: one-way, every cryptographic call refused after')
      .argument('<id>', 'key id')
      .requiredOption('--reason <reason>', 'what happened (required)')
      .action(async (id: string, opts: { reason: string }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.compromiseKey(id, opts.reason), globals, ['state']);
      }),
    'svc keys compromise 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 --reason "leaked in a log"',
  );

  examples(
    keys
      .command('destroy')
      .description("Erase every version's key material for good (cannot be undone), at once or after a waiting period")
      .argument('<id>', 'key id')
      .option(
        '--waiting-days <n>',
        "days before the key is destroyed, 0..30 (default: the deployment's; an " +
          'agent always waits its minimum); a Human may cancel meanwhile',
        wholeNumber('--waiting-days'),
      )
      .action(async (id: string, opts: { waitingDays?: number }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.destroyKey(id, { waitingDays: opts.waitingDays }), globals, ['state']);
      }),
    'svc keys destroy 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11',
    'svc keys destroy 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 --waiting-days 7',
  );

  examples(
    keys
      .command('public-key')
      .description('Print the SPKI PEM public key of an RSA, EC or EdDSA key')
      .argument('<id>', 'key id')
      .option('--key-version <n>', 'a version other than the current one', positiveInt('--key-version'))
      .action(async (id: string, opts: { keyVersion?: number }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        const result = await client.publicKey(id, opts.keyVersion);
        if (outputFormat(globals) === 'json' || outputFormat(globals) === 'table') print(result, globals);
        else
          process.stdout.write(result.publicKeyPem.endsWith('\n') ? result.publicKeyPem : `${result.publicKeyPem}\n`);
      }),
    'svc keys public-key 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 > signer.pem',
  );
}
