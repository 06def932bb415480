import { createHmac, randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type Logger,
  narrowToOwner,
  openAesGcm,
  type RootOfTrust,
  sealAesGcm,
  type WrappedKey,
} from '../../../kernel/index.ts';

export type KekSource =
  | { kind: 'configured'; kekBase64: string }
  | { kind: 'file'; file: string }
  | { kind: 'ephemeral' };

/** 0.1 wrapped material directly under the KEK in this format; start-up moves such material under a KWK. */
const LEGACY_FORMAT = 1;
/** A key-wrapping key under a KEK. */
const KWK_FORMAT = 2;

/** A KEK's public name: a keyed hash of the KEK, so it identifies the KEK without revealing anything of it. */
export const localKekId = (kek: Buffer): string =>
  `local:${createHmac('sha256', kek).update('svc-kms kek id').digest('hex').slice(0, 16)}`;

/**
 * Real AES-256-GCM under key-encryption keys kept in process memory. Development-grade only in where the
 * current KEK lives: configured, in a 0600 file beside journal.db, or random per process. Previous KEKs
 * (configured) still unwrap during a rotation. Blob: format byte | 12-byte IV | 16-byte tag | ciphertext,
 * the AAD naming the managed key, so a KWK moved to another key does not unwrap.
 */
export class LocalRootOfTrust implements RootOfTrust {
  readonly name = 'in-memory';
  private keks = new Map<string, Buffer>();
  private current: string | undefined;
  /** The KEK file this start made because none was there, if it did. */
  private madeFile: string | undefined;

  constructor(
    private readonly source: KekSource,
    private readonly previousKeksBase64: string[] = [],
    private readonly logger: Pick<Logger, 'warn'> = { warn: () => {} },
  ) {}

  async start(): Promise<void> {
    let kek: Buffer;
    if (this.source.kind === 'configured') kek = Buffer.from(this.source.kekBase64, 'base64');
    else if (this.source.kind === 'ephemeral') kek = randomBytes(32);
    else {
      const loaded = await loadOrCreateKekFile(this.source.file, this.logger);
      kek = loaded.kek;
      this.madeFile = loaded.made ? this.source.file : undefined;
    }
    const all = [kek, ...this.previousKeksBase64.map((b) => Buffer.from(b, 'base64'))];
    if (all.some((k) => k.length !== 32)) throw new Error('every KEK must be exactly 32 bytes');
    this.current = localKekId(kek);
    for (const k of all) this.keks.set(localKekId(k), k);
  }

  kekNote(): string | undefined {
    if (!this.madeFile) return undefined;
    return `There was no kek.key beside journal.db, so this start made a new KEK in ${this.madeFile}. Journal files restored from a backup need the kek.key kept with them: put it back in place of the new one (mode 0600), or give its KEK in SVC_CRYPTO_LOCAL_KEK.`;
  }

  async stop(): Promise<void> {
    for (const k of this.keks.values()) k.fill(0);
    this.keks.clear();
    this.current = undefined;
  }

  async probe(): Promise<void> {
    if (!this.current) throw new Error('KEK not loaded');
  }

  currentKekId(): string {
    if (!this.current) throw new Error('root of trust is not started');
    return this.current;
  }

  kekIds(): string[] {
    return [this.currentKekId(), ...[...this.keks.keys()].filter((id) => id !== this.current)];
  }

  async wrap(kwk: Buffer, keyId: string): Promise<WrappedKey> {
    const kekId = this.currentKekId();
    return { kekId, blob: sealAesGcm(this.keks.get(kekId)!, KWK_FORMAT, `kwk:${keyId}`, kwk) };
  }

  async unwrap(wrapped: WrappedKey, keyId: string): Promise<Buffer> {
    const kek = this.keks.get(wrapped.kekId);
    if (!kek)
      throw new Error(
        `the KEK ${wrapped.kekId} is not configured (list it as a previous KEK until rewrap has moved every key off it)`,
      );
    return openAesGcm(kek, KWK_FORMAT, `kwk:${keyId}`, wrapped.blob);
  }

  async unwrapLegacy(blob: Buffer, aad: string): Promise<Buffer> {
    for (const kek of this.keks.values()) {
      try {
        return openAesGcm(kek, LEGACY_FORMAT, aad, blob);
      } catch {
        // another KEK, perhaps
      }
    }
    throw new Error('0.1 material that no configured KEK opens');
  }
}

/**
 * Reads the KEK file (narrowed to 0600 first if found open to others), or creates it exclusively (0600) on first boot;
 * never overwrites one.
 */
async function loadOrCreateKekFile(
  file: string,
  logger: Pick<Logger, 'warn'>,
): Promise<{ kek: Buffer; made: boolean }> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    const handle = await open(file, 'wx', 0o600);
    const kek = randomBytes(32);
    await handle.writeFile(kek.toString('base64'));
    await handle.sync();
    await handle.close();
    await chmod(file, 0o600);
    return { kek, made: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  narrowToOwner(
    file,
    'KEK file',
    logger,
    'whoever could read it may hold the KEK: rotate it (a new KEK, the old one as previous, then rewrap)',
  );
  return { kek: Buffer.from((await readFile(file, 'utf8')).trim(), 'base64'), made: false };
}
