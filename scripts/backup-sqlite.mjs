#!/usr/bin/env node
// Online backup of a running SQLite node: `node scripts/backup-sqlite.mjs BACKUP_DIR JOURNAL_DB [AUDIT_DB]`
// (npm run backup:sqlite -- ...). Each file is copied with VACUUM INTO: one read transaction, so the copy
// is a consistent snapshot of that file even while the service writes (WAL mode lets it go on writing).
// The journal is copied before the audit store: the journal records how far each node's audit chain had
// reached, and an audit copy taken later can only be longer than that, never shorter (a shorter one would
// read as a cut chain to GET /v1/audit/verify). The KEK is not copied: keep it in a separate backup.
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const usage = 'usage: node scripts/backup-sqlite.mjs BACKUP_DIR JOURNAL_DB [AUDIT_DB]\n';
const [target, ...sources] = process.argv.slice(2);
if (!target || sources.length < 1 || sources.length > 2) {
  process.stderr.write(usage);
  process.exit(2);
}
// The driver the server itself uses for this Node version (better-sqlite3 12 on Node 20, 13 on newer).
const driver = path.join(root, 'dist/server/plugins/sql-support/sqlite-driver.js');
if (!existsSync(driver)) {
  process.stderr.write(`backup-sqlite: ${driver} is missing: run npm run build first\n`);
  process.exit(1);
}
const { Database } = await import(pathToFileURL(driver).href);

// Copies of key material and the audit trail are for the service's user only, as the originals are.
process.umask(0o077);
mkdirSync(target, { recursive: true, mode: 0o700 });
for (const source of sources) {
  if (!existsSync(source) || !statSync(source).isFile()) {
    process.stderr.write(`backup-sqlite: ${source} is not a database file\n`);
    process.exit(1);
  }
  const copy = path.join(target, path.basename(source));
  if (existsSync(copy)) {
    process.stderr.write(`backup-sqlite: ${copy} exists; a backup never overwrites one\n`);
    process.exit(1);
  }
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    // Waits for a writer's checkpoint instead of failing at once on a busy file.
    db.pragma('busy_timeout = 10000');
    db.prepare('VACUUM INTO ?').run(copy);
  } finally {
    db.close();
  }
  chmodSync(copy, 0o600);
  const check = new Database(copy, { readonly: true, fileMustExist: true });
  const verdict = check.pragma('integrity_check', { simple: true });
  check.close();
  if (verdict !== 'ok') {
    process.stderr.write(`backup-sqlite: the copy ${copy} fails its integrity check: ${verdict}\n`);
    process.exit(1);
  }
  process.stdout.write(`${source} -> ${copy} (${statSync(copy).size} bytes, integrity ok)\n`);
}
