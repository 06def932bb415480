import { readFileSync, writeFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import { UsageError } from './exit-codes.ts';

/** The data flags (--message, --message-base64, --file); stdin when none is given. */
export interface DataOptions {
  message?: string;
  messageBase64?: string;
  file?: string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export async function readData(opts: DataOptions, stdin: NodeJS.ReadStream = process.stdin): Promise<Buffer> {
  const given = [opts.message !== undefined, opts.messageBase64 !== undefined, opts.file !== undefined].filter(
    Boolean,
  ).length;
  if (given > 1) throw new UsageError('give only one of --message, --message-base64 and --file');
  if (opts.message !== undefined) return Buffer.from(opts.message, 'utf8');
  if (opts.messageBase64 !== undefined) return decodeBase64(opts.messageBase64, '--message-base64');
  if (opts.file !== undefined) {
    try {
      return readFileSync(opts.file);
    } catch (err) {
      throw new UsageError(
        `cannot read --file ${opts.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  }
  if (stdin.isTTY)
    throw new UsageError('no input: give --message, --message-base64 or --file, or pipe the data to stdin');
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function decodeBase64(text: string, flag: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) throw new UsageError(`${flag} is not standard base64`);
  return Buffer.from(compact, 'base64');
}

/** `--out FILE` writes the raw bytes (`-` is stdout, for pipes); without it the caller prints base64. */
export function writeBytes(out: string, bytes: Uint8Array): void {
  if (out === '-') {
    process.stdout.write(bytes);
    return;
  }
  try {
    writeFileSync(out, bytes);
  } catch (err) {
    throw new UsageError(`cannot write --out ${out}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
