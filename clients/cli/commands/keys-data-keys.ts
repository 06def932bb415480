import { Buffer } from 'node:buffer';
import { InvalidArgumentError, type Command } from 'commander';
import { contextPair, examples, invocation } from '../command-kit.ts';
import { readData, type DataOptions } from '../io.ts';
import { print } from '../output.ts';
import { emitBytes, withData, withOut } from './keys-crypto.ts';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function dataKeySize(value: string): 128 | 192 | 256 {
  if (value !== '128' && value !== '192' && value !== '256')
    throw new InvalidArgumentError('--size-bits must be 128, 192 or 256.');
  return Number(value) as 128 | 192 | 256;
}

/** `--destination-context k=v`, repeatable (contextPair names --context in its message). */
function destinationPair(value: string, previous: Record<string, string> = {}): Record<string, string> {
  if (value.indexOf('=') < 1) throw new InvalidArgumentError('--destination-context takes key=value.');
  return contextPair(value, previous);
}

/** keys data-key / reencrypt. */
export function registerKeyDataKeys(keys: Command): void {
  examples(
    keys
      .command('data-key')
      .description('A fresh data key for envelope encryption, with its ciphertext under an AES key')
      .argument('<id>', 'key id')
      .option('--size-bits <n>', '128, 192 or 256 (default 256)', dataKeySize)
      .option(
        '--context <key=value>',
        'encryption context bound to the ciphertext; decrypt needs the same (repeatable)',
        contextPair,
      )
      .option('--no-plaintext', 'answer only the encrypted data key (store it now, decrypt it when needed)')
      .action(
        async (
          id: string,
          opts: { sizeBits?: 128 | 192 | 256; context?: Record<string, string>; plaintext: boolean },
          cmd: Command,
        ) => {
          const { client, globals } = invocation(cmd);
          const r = await client.generateDataKey(id, {
            sizeBits: opts.sizeBits,
            context: opts.context,
            plaintext: opts.plaintext,
          });
          print(
            {
              ciphertextBase64: b64(r.ciphertext),
              ...(r.plaintext ? { plaintextBase64: b64(r.plaintext) } : {}),
              keyVersion: r.keyVersion,
              algorithm: r.algorithm,
            },
            globals,
            ['ciphertextBase64', 'plaintextBase64'],
          );
        },
      ),
    'svc keys data-key $KEY --context file=backup.tar --json',
    'svc keys data-key $KEY --no-plaintext --json > dek.json',
  );

  examples(
    withOut(
      withData(
        keys
          .command('reencrypt')
          .description('Move a ciphertext to another key or to the current version; the plaintext stays in the service')
          .argument('<id>', 'key id that encrypted it'),
        'the ciphertext',
      ),
    )
      .option('--context <key=value>', 'the encryption context it was encrypted with (repeatable)', contextPair)
      .option('--destination <keyId>', 'the key to encrypt under (default: the same key, its current version)')
      .option(
        '--destination-context <key=value>',
        'the context of the new ciphertext (repeatable; default: the same context)',
        destinationPair,
      )
      .action(
        async (
          id: string,
          opts: DataOptions & {
            context?: Record<string, string>;
            destination?: string;
            destinationContext?: Record<string, string>;
            out?: string;
          },
          cmd: Command,
        ) => {
          const { client, globals } = invocation(cmd);
          const r = await client.reencrypt(id, await readData(opts), {
            context: opts.context,
            destinationKeyId: opts.destination,
            destinationContext: opts.destinationContext,
          });
          emitBytes(
            'ciphertextBase64',
            r.ciphertext,
            { keyVersion: r.keyVersion, sourceKeyVersion: r.sourceKeyVersion },
            opts.out,
            globals,
          );
        },
      ),
    'svc keys reencrypt $KEY --file secrets.env.enc --context tenant=acme --out secrets.env.enc2',
    'svc keys reencrypt $OLD --message-base64 AQAAAAE... --destination $NEW',
  );
}
