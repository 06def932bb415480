import { spawn } from 'node:child_process';
import { createDecipheriv } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';

/** Every byte of every file below a directory, as an attacker with a copy of it has them. */
export function everyByte(dir: string): Buffer {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile());
  return Buffer.concat(files.map((f) => readFileSync(f)));
}

/** AES-256-GCM blob `format | IV 12 | tag 16 | ciphertext` at `at`, with a ciphertext of `length` bytes. */
function tryOpen(bytes: Buffer, at: number, length: number, key: Buffer, aad: string): Buffer | undefined {
  const end = at + 29 + length;
  if (end > bytes.length) return undefined;
  try {
    const d = createDecipheriv('aes-256-gcm', key, bytes.subarray(at + 1, at + 13));
    d.setAAD(Buffer.from(aad));
    d.setAuthTag(bytes.subarray(at + 13, at + 29));
    return Buffer.concat([d.update(bytes.subarray(at + 29, end)), d.final()]);
  } catch {
    return undefined;
  }
}

/** Every offset where a blob of this format could start. */
function* candidates(bytes: Buffer, format: number): Generator<number> {
  for (let i = bytes.indexOf(format); i !== -1; i = bytes.indexOf(format, i + 1)) yield i;
}

/**
 * What an attacker who knows svc-kms' formats and holds the KEK can recover of one AES-256 key's
 * material from raw bytes: material wrapped directly under the KEK (svc-kms 0.1, format 1), and
 * material sealed under a key-wrapping key (format 3) whose KWK (format 2) is found under the KEK.
 */
export function recoverAesMaterial(bytes: Buffer, kek: Buffer, keyId: string, materialId: string): Buffer[] {
  const found: Buffer[] = [];
  for (const at of candidates(bytes, 1)) {
    const m = tryOpen(bytes, at, 32, kek, `${keyId}/${materialId}`);
    if (m) found.push(m);
  }
  const kwks: Buffer[] = [];
  for (const at of candidates(bytes, 2)) {
    const kwk = tryOpen(bytes, at, 32, kek, `kwk:${keyId}`);
    if (kwk) kwks.push(kwk);
  }
  for (const kwk of kwks) {
    for (const at of candidates(bytes, 3)) {
      const m = tryOpen(bytes, at, 32, kwk, `${keyId}/${materialId}`);
      if (m) found.push(m);
    }
  }
  return found;
}

/**
 * The relation files of journal tables on PostgreSQL, read as the database superuser after a checkpoint
 * (so shared buffers are on disk): what an attacker who copies the data directory has.
 */
export async function postgresTableFiles(admin: Knex, tables: string[]): Promise<Buffer> {
  await admin.raw('checkpoint');
  const pages: Buffer[] = [];
  for (const table of tables) {
    const file = (await admin.raw('select pg_relation_filepath(?) as f', [table])).rows[0].f as string;
    pages.push((await admin.raw('select pg_read_binary_file(?) as b', [file])).rows[0].b as Buffer);
  }
  return Buffer.concat(pages);
}

/**
 * A real `sqlite3` process holding a read transaction on a database file, as `sqlite3 .backup` does
 * while it copies: until `release`, no checkpoint can empty the file's WAL.
 */
export async function holdSqliteReader(file: string, table = 'svc_key_events'): Promise<{ release(): Promise<void> }> {
  const reader = spawn('sqlite3', [file], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => reader.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    reader.once('error', reject);
    reader.stderr.on('data', (d) => reject(new Error(`sqlite3: ${String(d)}`)));
    // The first row read means the read transaction (and its snapshot of the WAL) is open.
    reader.stdout.once('data', () => resolve());
    reader.stdin.write(`begin;\nselect count(*) from ${table};\n`);
  });
  let released = false;
  return {
    // Once: a test may release it early and again in its teardown.
    release: async () => {
      if (!released) reader.stdin.end('commit;\n.quit\n');
      released = true;
      await exited;
    },
  };
}
