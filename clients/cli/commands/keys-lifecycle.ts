import type { Command } from 'commander';
import { examples, invocation, positiveInt, wholeNumber } from '../command-kit.ts';
import { listKeys } from '../keys-list.ts';
import { print, printLine } from '../output.ts';
import type { Curve, KeyAlgorithm } from '../../sdk/index.ts';

/** keys create / get / list / activate / rotate / revoke / compromise / destroy / public-key. */
export function registerKeyLifecycle(keys: Command): void {
  examples(
    keys.command('create').description('Create a key (state PreActive, version 1)')
      .requiredOption('--name <name>', 'a label for people; need not be unique')
      .requiredOption('--algorithm <algorithm>', 'AES, HMAC, RSA, EC or EdDSA')
      .option('--size-bits <bits>', 'AES 128|192|256, HMAC 256|384|512, RSA 2048|3072|4096', positiveInt('--size-bits'))
      .option('--curve <curve>', 'EC: P-256|P-384|P-521|secp256k1; EdDSA: Ed25519|Ed448')
      .action(async (opts: { name: string; algorithm: string; sizeBits?: number; curve?: string }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        // The service checks the values and answers InvalidField naming the allowed ones.
        print(await client.createKey({ name: opts.name, algorithm: opts.algorithm as KeyAlgorithm, sizeBits: opts.sizeBits, curve: opts.curve as Curve | undefined }), globals.json);
      }),
    'svc keys create --name payments --algorithm AES --size-bits 256',
    'svc keys create --name signer --algorithm EC --curve P-256 --json',
  );

  examples(
    keys.command('get').description('Show a key: state, versions, timestamps').argument('<id>', 'key id')
      .action(async (id: string, _opts, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.getKey(id), globals.json);
      }),
    'svc keys get 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11',
  );

  examples(
    keys.command('list').description('List the keys whose creation the audit trail shows (there is no list endpoint)')
      .option('--all', 'keys created by anyone, not only by you')
      .option('--limit <n>', 'at most this many keys, newest first', positiveInt('--limit'), 100)
      .addHelpText('after', [
        '',
        'Limits: svc-kms has no key listing endpoint, so this reads your successful Create records from',
        'GET /v1/audit (op=Create) and then fetches each key. It needs a queryable audit sink (not stdout:',
        '501), a Human principal with the Query permission, and it misses keys whose Create record was',
        'pruned by audit retention. "You" is --user, or the sub claim of your token.',
      ].join('\n'))
      .action(async (opts: { all?: boolean; limit: number }, cmd: Command) => {
        const { client, globals, connection } = invocation(cmd);
        const actor = opts.all ? undefined : connection.user;
        for (const row of await listKeys(client, { actor, limit: opts.limit })) {
          printLine(row, [row.id, row.state.padEnd(11), row.algorithm.padEnd(7), `v${row.currentVersion}`, row.createdAt, row.name].join('  '), globals.json);
        }
      }),
    'svc keys list',
    'svc keys list --all --limit 20 --json',
  );

  examples(
    keys.command('activate').description('PreActive -> Active').argument('<id>', 'key id')
      .action(async (id: string, _opts, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.activateKey(id), globals.json);
      }),
    'svc keys activate 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11',
  );

  examples(
    keys.command('rotate').description('Make a new version current; old versions keep verifying and decrypting').argument('<id>', 'key id')
      .option('--policy <policy>', 'Manual, TimeBased:<n><s|m|h|days> or OpCountBased:<n>')
      .option('--reason <reason>', 'why, for the audit trail')
      .action(async (id: string, opts: { policy?: string; reason?: string }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.rotateKey(id, { policy: opts.policy, reason: opts.reason }), globals.json);
      }),
    'svc keys rotate 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 --policy OpCountBased:1000000',
  );

  examples(
    keys.command('revoke').description('Active -> Deactivated (no new signatures or ciphertexts; old ones still open)').argument('<id>', 'key id')
      .option('--reason <reason>', 'why, for the audit trail')
      .action(async (id: string, opts: { reason?: string }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.revokeKey(id, opts.reason), globals.json);
      }),
    'svc keys revoke 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 --reason "service retired"',
  );

  examples(
    keys.command('compromise').description('Mark a key compromised: one-way, every cryptographic call refused after').argument('<id>', 'key id')
      .requiredOption('--reason <reason>', 'what happened (required)')
      .action(async (id: string, opts: { reason: string }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.compromiseKey(id, opts.reason), globals.json);
      }),
    'svc keys compromise 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 --reason "leaked in a log"',
  );

  examples(
    keys.command('destroy').description('Erase every version\'s key material for good (cannot be undone), at once or after a waiting period').argument('<id>', 'key id')
      .option('--waiting-days <n>', "days before the key is destroyed, 0..30 (default: the deployment's; an agent always waits its minimum); a Human may cancel meanwhile", wholeNumber('--waiting-days'))
      .action(async (id: string, opts: { waitingDays?: number }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.destroyKey(id, { waitingDays: opts.waitingDays }), globals.json);
      }),
    'svc keys destroy 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11',
    'svc keys destroy 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 --waiting-days 7',
  );

  examples(
    keys.command('public-key').description('Print the SPKI PEM public key of an RSA, EC or EdDSA key').argument('<id>', 'key id')
      .option('--key-version <n>', 'a version other than the current one', positiveInt('--key-version'))
      .action(async (id: string, opts: { keyVersion?: number }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        const result = await client.publicKey(id, opts.keyVersion);
        if (globals.json) print(result, true);
        else process.stdout.write(result.publicKeyPem.endsWith('\n') ? result.publicKeyPem : `${result.publicKeyPem}\n`);
      }),
    'svc keys public-key 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 > signer.pem',
  );
}
