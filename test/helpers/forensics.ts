import { createDecipheriv } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Every byte of every file below a directory, as an attacker with a copy of it has them. */
export function everyByte(dir: string): Buffer {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f)).filter((f) => statSync(f).isFile());
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
