import { Buffer } from 'node:buffer';
import type { Command } from 'commander';
import { contextPair, examples, invocation, positiveInt } from '../command-kit.ts';
import { EXIT, UsageError } from '../exit-codes.ts';
import { decodeBase64, readData, writeBytes, type DataOptions } from '../io.ts';
import { print, type OutputFlags } from '../output.ts';
import type { SignatureAlgorithm } from '../../sdk/index.ts';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** --message / --message-base64 / --file, else stdin. */
export function withData(cmd: Command, what: string): Command {
  return cmd
    .option('--message <text>', `${what} as UTF-8 text`)
    .option('--message-base64 <b64>', `${what} as standard base64`)
    .option('--file <path>', `${what}: the raw bytes of a file (default: stdin)`);
}

export const withOut = (cmd: Command) =>
  cmd.option('--out <file>', 'write the raw result bytes to FILE (- for stdout) instead of printing base64');

/** Prints a result whose main field is bytes: raw to --out, else base64 under the API's field name. */
export function emitBytes(
  field: string,
  bytes: Uint8Array,
  rest: Record<string, unknown>,
  out: string | undefined,
  flags: OutputFlags,
): void {
  if (out) writeBytes(out, bytes);
  else print({ [field]: b64(bytes), ...rest }, flags, [field]);
}

/** keys sign / verify / encrypt / decrypt / wrap / unwrap. */
export function registerKeyCrypto(keys: Command): void {
  examples(
    withOut(
      withData(
        keys.command('sign').description("Sign a message with the key's current version").argument('<id>', 'key id'),
        'the message',
      ),
    )
      .option('--algorithm <alg>', "for example EcdsaSha256, Ed25519, RsaPssSha256; default: the key's own")
      .action(async (id: string, opts: DataOptions & { algorithm?: string; out?: string }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        const r = await client.sign(id, await readData(opts), {
          algorithm: opts.algorithm as SignatureAlgorithm | undefined,
        });
        emitBytes(
          'signatureBase64',
          r.signature,
          { algorithm: r.algorithm, keyVersion: r.keyVersion },
          opts.out,
          globals,
        );
      }),
    'svc keys sign $KEY --message "pay 10 EUR to Bob"',
    'svc keys sign $KEY --file invoice.pdf --out invoice.sig',
  );

  examples(
    withData(
      keys
        .command('verify')
        .description('Verify a signature: exit 0 when valid, 3 when not')
        .argument('<id>', 'key id'),
      'the signed message',
    )
      .option('--signature <b64>', 'the signature, base64')
      .option('--signature-file <path>', "the signature's raw bytes (as written by sign --out)")
      .option('--algorithm <alg>', "default: the key's own")
      .option(
        '--key-version <n>',
        'check only this version (default: every version, newest first)',
        positiveInt('--key-version'),
      )
      .action(
        async (
          id: string,
          opts: DataOptions & { signature?: string; signatureFile?: string; algorithm?: string; keyVersion?: number },
          cmd: Command,
        ) => {
          const { client, globals } = invocation(cmd);
          if ((opts.signature === undefined) === (opts.signatureFile === undefined))
            throw new UsageError('give one of --signature B64 and --signature-file PATH');
          const signature =
            opts.signatureFile !== undefined
              ? await readData({ file: opts.signatureFile })
              : decodeBase64(opts.signature!, '--signature');
          const r = await client.verify(id, await readData(opts), signature, {
            algorithm: opts.algorithm as SignatureAlgorithm | undefined,
            keyVersion: opts.keyVersion,
          });
          print({ ...r }, globals, ['valid']);
          if (!r.valid) process.exitCode = EXIT.invalidSignature;
        },
      ),
    'svc keys verify $KEY --message "pay 10 EUR to Bob" --signature MEUCIQ...',
    'svc keys verify $KEY --file invoice.pdf --signature-file invoice.sig || echo "not signed by this key"',
  );

  examples(
    withOut(
      withData(
        keys
          .command('encrypt')
          .description('AES-GCM encrypt (at most 64 KiB; use wrap for larger data)')
          .argument('<id>', 'key id'),
        'the plaintext',
      ),
    )
      .option(
        '--context <key=value>',
        'encryption context, bound as AAD; decrypt needs the same (repeatable)',
        contextPair,
      )
      .action(
        async (id: string, opts: DataOptions & { context?: Record<string, string>; out?: string }, cmd: Command) => {
          const { client, globals } = invocation(cmd);
          const r = await client.encrypt(id, await readData(opts), opts.context);
          emitBytes(
            'ciphertextBase64',
            r.ciphertext,
            { keyVersion: r.keyVersion, algorithm: r.algorithm },
            opts.out,
            globals,
          );
        },
      ),
    'svc keys encrypt $KEY --message "card 4111..." --context tenant=acme',
    'svc keys encrypt $KEY --out - < secrets.env > secrets.env.enc',
  );

  examples(
    withOut(
      withData(
        keys.command('decrypt').description('Decrypt what encrypt returned (same context)').argument('<id>', 'key id'),
        'the ciphertext',
      ),
    )
      .option('--context <key=value>', 'the encryption context given to encrypt (repeatable)', contextPair)
      .action(
        async (id: string, opts: DataOptions & { context?: Record<string, string>; out?: string }, cmd: Command) => {
          const { client, globals } = invocation(cmd);
          const r = await client.decrypt(id, await readData(opts), opts.context);
          emitBytes('plaintextBase64', r.plaintext, { keyVersion: r.keyVersion }, opts.out, globals);
        },
      ),
    'svc keys decrypt $KEY --message-base64 AQAAAAE... --context tenant=acme',
    'svc keys decrypt $KEY --out - < secrets.env.enc > secrets.env',
  );

  examples(
    withOut(
      withData(
        keys
          .command('wrap')
          .description('Wrap a data key (16..512 bytes, a multiple of 8) under an AES key')
          .argument('<id>', 'key id'),
        'the data key',
      ),
    ).action(async (id: string, opts: DataOptions & { out?: string }, cmd: Command) => {
      const { client, globals } = invocation(cmd);
      const r = await client.wrap(id, await readData(opts));
      emitBytes(
        'wrappedDekBase64',
        r.wrappedDek,
        { keyVersion: r.keyVersion, algorithm: r.algorithm },
        opts.out,
        globals,
      );
    }),
    'head -c 32 /dev/urandom > dek.bin && svc keys wrap $KEY --file dek.bin --out dek.wrapped',
  );

  examples(
    withOut(
      withData(
        keys
          .command('unwrap')
          .description('Unwrap a data key wrapped by wrap; the bytes come back identical')
          .argument('<id>', 'key id'),
        'the wrapped key',
      ),
    ).action(async (id: string, opts: DataOptions & { out?: string }, cmd: Command) => {
      const { client, globals } = invocation(cmd);
      const r = await client.unwrap(id, await readData(opts));
      emitBytes('dekBase64', r.dek, { keyVersion: r.keyVersion }, opts.out, globals);
    }),
    'svc keys unwrap $KEY --file dek.wrapped --out dek.bin',
  );
}
