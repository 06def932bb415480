import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import type { ApiClient } from '../helpers/client.ts';
import { checkState, seedState, type SeededState } from '../helpers/backup-state.ts';
import { freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';
import { TEST_SECRET } from '../helpers/tokens.ts';

// Backups as docs/operations.md tells operators to take them, on a running node, and restores into a
// fresh place: keys, versions, agents and the audit chain must come back whole.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);
// Agents need the service's token signing secret; the dev header stands for the Human.
const AGENTS = { SVC_AUTH_HMAC_SECRET: TEST_SECRET };

/**
 * After the backup: a key is compromised and destroyed, another created. The restore brings the world of
 * the backup back: the destroyed key is usable again (its material was in the backup), the new one is gone.
 */
async function changeAfterBackup(t: Test, api: ApiClient, state: SeededState): Promise<string> {
  const destroyed = state.ciphertexts[0]!.keyId;
  t.equal((await api.post(`/v1/keys/${destroyed}/compromise`, { reason: 'drill' })).status, 200);
  t.equal((await api.call('DELETE', `/v1/keys/${destroyed}`)).status, 200, 'a key destroyed after the backup');
  return api.key({ name: 'after-backup', algorithm: 'AES', sizeBits: 256 });
}

async function checkRestored(t: Test, svc: TestService, state: SeededState, createdAfter: string): Promise<void> {
  const api = svc.client('alice');
  await checkState(t, api, state, 'restored');
  t.equal((await api.get(`/v1/keys/${createdAfter}`)).status, 404, 'a key created after the backup is not in it');
}

t.test(
  'SQLite: online backup of a running node with scripts/backup-sqlite.mjs, restored into a new data directory',
  async (t) => {
    const dir = tempDir();
    const env = { SVC_JOURNAL_KIND: 'rdb-embedded', SVC_AUDIT_KIND: 'rdb-embedded', ...AGENTS };
    const svc = await startTestService(env, { dir });
    const api = svc.client('alice');
    const state = await seedState(api, 'sqlite');
    // The node keeps serving (and writing) while the copy is taken.
    const traffic = (async () => {
      for (let i = 0; i < 50; i++)
        await api.post(`/v1/keys/${state.signature.keyId}/sign`, { messageBase64: state.signature.messageBase64 });
    })();
    const backup = path.join(tempDir('svc-kms-backup-'), 'b1');
    const { stdout } = await run(process.execPath, [
      path.join(ROOT, 'scripts/backup-sqlite.mjs'),
      backup,
      path.join(dir, 'journal.db'),
      path.join(dir, 'audit.db'),
    ]);
    await traffic;
    t.match(
      stdout,
      /journal\.db -> .*integrity ok\)\n.*audit\.db -> .*integrity ok\)\n/,
      'the journal first, then the audit store',
    );
    t.same(
      readdirSync(backup).sort(),
      ['audit.db', 'journal.db'],
      'the databases only: the KEK is backed up on its own',
    );
    for (const file of readdirSync(backup))
      t.equal(statSync(path.join(backup, file)).mode & 0o777, 0o600, `${file} is for the owner only`);
    const refused = await run(process.execPath, [
      path.join(ROOT, 'scripts/backup-sqlite.mjs'),
      backup,
      path.join(dir, 'journal.db'),
    ]).catch((err) => err);
    t.match(refused.stderr, /exists; a backup never overwrites one/, 'an existing backup is never overwritten');
    // After the backup: the signs above and these changes are not in it.
    const createdAfter = await changeAfterBackup(t, api, state);
    const kek = path.join(dir, 'kek.key');
    t.ok(existsSync(kek), 'the local KEK file the node made (its own backup in real life)');
    await svc.stop();

    // The databases restored without the KEK (kept apart, as operations.md says): the service will not
    // open a single key, and says that kek.key is what is missing and which KEK the data needs.
    const restoredDir = tempDir();
    for (const file of ['journal.db', 'audit.db']) copyFileSync(path.join(backup, file), path.join(restoredDir, file));
    const refusal = await startTestService(env, { dir: restoredDir }).then(
      async (svc) => {
        await svc.stop();
        return 'booted';
      },
      (err: Error) => err.message,
    );
    t.match(
      refusal,
      /There was no kek\.key beside journal\.db, so this start made a new KEK in \S+kek\.key\. Journal files restored from a backup need the kek\.key kept with them: put it back in place of the new one/,
      'a restore without kek.key fails the boot and says what is missing',
    );
    t.match(
      refusal,
      /cannot unwrap the stored key-wrapping keys.*under KEK local:/,
      'and names the KEK the data needs',
    );

    // The operator does what the message says: the kek.key kept apart goes back in place of the new one.
    copyFileSync(kek, path.join(restoredDir, 'kek.key'));
    const restored = await startTestService(env, { dir: restoredDir });
    t.teardown(() => restored.stop());
    await checkRestored(t, restored, state, createdAfter);
  },
);

/** A second empty database on the same server, for the restore. */
async function restoreTarget(t: Test, kind: 'postgresql' | 'mysql'): Promise<TestDatabase> {
  const db = await freshDatabase(t, kind);
  if (!db) throw new Error(`${kind} test server missing`);
  return db;
}

/** host, port and database name of a JDBC-style test URL. */
function partsOf(db: TestDatabase): { host: string; port: string; name: string } {
  const url = new URL(db.url.replace(/^jdbc:/, ''));
  return { host: url.hostname, port: url.port, name: url.pathname.slice(1) };
}

t.test('PostgreSQL: pg_dump of the running service, pg_restore into a new database', async (t) => {
  const source = await freshDatabase(t, 'postgresql');
  if (!source) return;
  const svc = await startTestService({ ...source.env, ...AGENTS });
  const api = svc.client('alice');
  const state = await seedState(api, 'pg');
  const dump = path.join(tempDir('svc-kms-backup-'), 'svc.dump');
  const from = partsOf(source);
  const pgEnv = { ...process.env, PGPASSWORD: source.password, PGUSER: source.user };
  await run('pg_dump', ['--format=custom', `--file=${dump}`, `--host=${from.host}`, `--port=${from.port}`, from.name], {
    env: pgEnv,
  });
  const createdAfter = await changeAfterBackup(t, api, state);
  await svc.stop();

  const target = await restoreTarget(t, 'postgresql');
  const to = partsOf(target);
  await run(
    'pg_restore',
    ['--no-owner', '--exit-on-error', `--host=${to.host}`, `--port=${to.port}`, `--dbname=${to.name}`, dump],
    { env: pgEnv },
  );
  const restored = await startTestService({ ...target.env, ...AGENTS });
  t.teardown(() => restored.stop());
  await checkRestored(t, restored, state, createdAfter);
});

t.test('MariaDB: mariadb-dump --single-transaction of the running service, loaded into a new database', async (t) => {
  const source = await freshDatabase(t, 'mysql');
  if (!source) return;
  const svc = await startTestService({ ...source.env, ...AGENTS });
  const api = svc.client('alice');
  const state = await seedState(api, 'mariadb');
  const dump = path.join(tempDir('svc-kms-backup-'), 'svc.sql');
  const from = partsOf(source);
  const myEnv = { ...process.env, MYSQL_PWD: source.password };
  await run(
    'sh',
    [
      '-c',
      'mariadb-dump --single-transaction --routines --triggers --host="$1" --port="$2" --user="$3" "$4" > "$5"',
      'sh',
      from.host,
      from.port,
      source.user,
      from.name,
      dump,
    ],
    { env: myEnv },
  );
  const createdAfter = await changeAfterBackup(t, api, state);
  await svc.stop();

  const target = await restoreTarget(t, 'mysql');
  const to = partsOf(target);
  await run(
    'sh',
    [
      '-c',
      'mariadb --host="$1" --port="$2" --user="$3" "$4" < "$5"',
      'sh',
      to.host,
      to.port,
      source.user,
      to.name,
      dump,
    ],
    { env: myEnv },
  );
  const restored = await startTestService({ ...target.env, ...AGENTS });
  t.teardown(() => restored.stop());
  await checkRestored(t, restored, state, createdAfter);
});
