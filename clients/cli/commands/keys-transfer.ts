import type { Buffer } from 'node:buffer';
import { createPrivateKey } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { examples, invocation, positiveInt } from '../command-kit.ts';
import { UsageError } from '../exit-codes.ts';
import { print } from '../output.ts';
import type { Curve, KeyAlgorithm } from '../../sdk/index.ts';

const fileError = (verb: string, flag: string, file: string, err: unknown) =>
  new UsageError(`cannot ${verb} ${flag} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);

/**
 * The material in `file` as import takes it: raw bytes for AES and HMAC; for RSA, EC and EdDSA a
 * private key in PEM (PKCS#8, PKCS#1 or SEC1, as openssl writes them) or DER, turned into unencrypted
 * PKCS#8 DER here, before it is wrapped, so it never leaves this machine unwrapped.
 */
function readMaterial(file: string, algorithm: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw fileError('read', '--material-file', file, err);
  }
  if (algorithm === 'AES' || algorithm === 'HMAC') return bytes;
  try {
    const pem = bytes.toString('latin1').includes('-----BEGIN');
    return createPrivateKey(pem ? { key: bytes, format: 'pem' } : { key: bytes, format: 'der', type: 'pkcs8' }).export({
      type: 'pkcs8',
      format: 'der',
    });
  } catch {
    // The service checks DER itself and says what is wrong with it; PEM it could not read is refused here.
    return bytes;
  }
}

/** keys export / import: key material in and out, wrapped on the way in. */
export function registerKeyTransfer(keys: Command): void {
  examples(
    keys
      .command('export')
      .description("Write an exportable key's material to a file (raw for AES/HMAC, PKCS#8 DER otherwise)")
      .argument('<id>', 'key id')
      .requiredOption(
        '--out <file>',
        'where to write the material, created with mode 0600 (never overwritten); - for stdout',
      )
      .option('--version <n>', 'the key version (default the current one)', positiveInt('--version'))
      .action(async (id: string, opts: { out: string; version?: number }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        const exported = await client.exportKey(id, { version: opts.version });
        try {
          if (opts.out === '-') process.stdout.write(exported.material);
          else writeFileSync(opts.out, exported.material, { mode: 0o600, flag: 'wx' });
        } catch (err) {
          throw fileError('write', '--out', opts.out, err);
        } finally {
          exported.material.fill(0);
        }
        if (opts.out !== '-')
          print({ id: exported.id, keyVersion: exported.keyVersion, format: exported.format, out: opts.out }, globals, [
            'out',
          ]);
      }),
    'svc keys export 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 --out payments.key',
    'svc keys export 0f8c2d1e-7b7a-4c8e-9d55-3f2a8f5a9c11 --version 1 --out - | base64',
  );

  examples(
    keys
      .command('import')
      .description(
        'Create a key from material in a file: fetches import parameters, wraps ' +
          'the material here, imports it (PreActive)',
      )
      .requiredOption('--name <name>', 'a label for people; need not be unique')
      .requiredOption('--algorithm <algorithm>', 'AES, HMAC, RSA, EC or EdDSA')
      .requiredOption(
        '--material-file <file>',
        'AES/HMAC: the raw key bytes; RSA/EC/EdDSA: the private key, PEM or PKCS#8 DER',
      )
      .option('--size-bits <bits>', 'AES 128|192|256, HMAC 256|384|512, RSA 2048|3072|4096', positiveInt('--size-bits'))
      .option('--curve <curve>', 'EC: P-256|P-384|P-521|secp256k1; EdDSA: Ed25519|Ed448')
      .option('--exportable', 'allow exporting the key later (fixed at creation)')
      .action(
        async (
          opts: {
            name: string;
            algorithm: string;
            materialFile: string;
            sizeBits?: number;
            curve?: string;
            exportable?: boolean;
          },
          cmd: Command,
        ) => {
          const { client, globals } = invocation(cmd);
          const material = readMaterial(opts.materialFile, opts.algorithm);
          try {
            const spec = {
              name: opts.name,
              algorithm: opts.algorithm as KeyAlgorithm,
              sizeBits: opts.sizeBits,
              curve: opts.curve as Curve | undefined,
              ...(opts.exportable ? { exportable: true } : {}),
            };
            print(await client.importKey(spec, material), globals, ['id']);
          } finally {
            material.fill(0);
          }
        },
      ),
    'svc keys import --name payments --algorithm AES --material-file aes.key',
    'svc keys import --name signer --algorithm EC --curve P-256 --material-file ec-private.pem --exportable',
  );
}
