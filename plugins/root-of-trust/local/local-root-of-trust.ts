import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RootOfTrust } from '../../../kernel/ports/root-of-trust.ts';

export type KekSource =
  | { kind: 'configured'; kekBase64: string }
  | { kind: 'file'; file: string }
  | { kind: 'ephemeral' };

const FORMAT = 1;

/**
 * Real AES-256-GCM under a key-encryption key kept in process memory. Development-grade only in where
 * the KEK lives: configured, in a 0600 file beside journal.db, or random per process.
 * Blob: format byte | 12-byte IV | 16-byte tag | ciphertext; the AAD names key id and version.
 */
export class LocalRootOfTrust implements RootOfTrust {
  readonly name = 'in-memory';
  private kek: Buffer | undefined;

  constructor(private readonly source: KekSource) {}

  async start(): Promise<void> {
    if (this.source.kind === 'configured') this.kek = Buffer.from(this.source.kekBase64, 'base64');
    else if (this.source.kind === 'ephemeral') this.kek = randomBytes(32);
    else this.kek = await loadOrCreateKekFile(this.source.file);
    if (this.kek.length !== 32) throw new Error('the KEK must be exactly 32 bytes');
  }

  async stop(): Promise<void> {
    this.kek?.fill(0);
    this.kek = undefined;
  }

  async probe(): Promise<void> {
    if (!this.kek) throw new Error('KEK not loaded');
  }

  async wrap(material: Buffer, aad: string): Promise<Buffer> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.requireKek(), iv);
    cipher.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([cipher.update(material), cipher.final()]);
    return Buffer.concat([Buffer.of(FORMAT), iv, cipher.getAuthTag(), ct]);
  }

  async unwrap(wrapped: Buffer, aad: string): Promise<Buffer> {
    if (wrapped[0] !== FORMAT || wrapped.length < 29) throw new Error('wrapped material has an unknown format');
    const decipher = createDecipheriv('aes-256-gcm', this.requireKek(), wrapped.subarray(1, 13));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(wrapped.subarray(13, 29));
    return Buffer.concat([decipher.update(wrapped.subarray(29)), decipher.final()]);
  }

  private requireKek(): Buffer {
    if (!this.kek) throw new Error('root of trust is not started');
    return this.kek;
  }
}

/** Reads the KEK file, or creates it exclusively (0600) on first boot; never overwrites one. */
async function loadOrCreateKekFile(file: string): Promise<Buffer> {
  await mkdir(path.dirname(file), { recursive: true });
  try {
    const handle = await open(file, 'wx', 0o600);
    const kek = randomBytes(32);
    await handle.writeFile(kek.toString('base64'));
    await handle.sync();
    await handle.close();
    await chmod(file, 0o600);
    return kek;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
}
