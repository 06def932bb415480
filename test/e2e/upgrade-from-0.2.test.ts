import { execFile } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { checkState, type SeededState } from '../helpers/backup-state.ts';
import { b64 } from '../helpers/client.ts';
import { freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';
import { TEST_SECRET } from '../helpers/tokens.ts';

// Data written by the 0.2.0 release itself (test/fixtures/v0.2.0/generate.sh ran its code), opened by
// this release: migrations run at start, and everything 0.2.0 made must still be there and usable.
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/v0.2.0');
const run = promisify(execFile);
const AGENTS = { SVC_AUTH_HMAC_SECRET: TEST_SECRET };
const stateOf = (backend: string): SeededState =>
  JSON.parse(readFileSync(path.join(FIXTURES, `state-${backend}.json`), 'utf8'));

/** Checks the upgraded service, uses it, and checks again after one more restart. */
async function checkUpgraded(t: Test, start: () => Promise<TestService>, state: SeededState): Promise<void> {
  const first = await start();
  await checkState(t, first.client('alice'), state, 'after the upgrade', { exact: false });
  const api = first.client('alice');
  const keyId = state.ciphertexts[0]!.keyId;
  const enc = await api.post(`/v1/keys/${keyId}/encrypt`, {
    plaintextBase64: b64('after the upgrade'),
    context: { tenant: 'acme' },
  });
  t.equal(enc.status, 200, 'a 0.2.0 key encrypts on this release');
  t.equal((await api.post(`/v1/keys/${keyId}/rotate`, {})).body.currentVersion, 3, 'and rotates to a third version');
  await first.stop();
  const second = await start();
  t.teardown(() => second.stop());
  const again = second.client('alice');
  t.equal(
    (await again.get('/v1/audit/verify?full=true')).body.valid,
    true,
    'the chain, old rows and new, verifies after another restart',
  );
  const dec = await again.post(`/v1/keys/${keyId}/decrypt`, {
    ciphertextBase64: enc.body.ciphertextBase64,
    context: { tenant: 'acme' },
  });
  t.equal(dec.body.plaintextBase64, b64('after the upgrade'));
}

t.test('SQLite: a 0.2.0 data directory (journal.db, audit.db, kek.key) upgraded in place', async (t) => {
  const dir = tempDir();
  cpSync(path.join(FIXTURES, 'sqlite'), dir, { recursive: true });
  const env = { SVC_JOURNAL_KIND: 'rdb-embedded', SVC_AUDIT_KIND: 'rdb-embedded', ...AGENTS };
  await checkUpgraded(t, () => startTestService(env, { dir }), stateOf('sqlite'));
});

/** host, port and database name of a JDBC-style test URL. */
function partsOf(db: TestDatabase): { host: string; port: string; name: string } {
  const url = new URL(db.url.replace(/^jdbc:/, ''));
  return { host: url.hostname, port: url.port, name: url.pathname.slice(1) };
}

t.test('PostgreSQL: a 0.2.0 database (pg_dump) upgraded in place', async (t) => {
  const db = await freshDatabase(t, 'postgresql');
  if (!db) return;
  const to = partsOf(db);
  await run(
    'psql',
    [
      '--quiet',
      '--set=ON_ERROR_STOP=1',
      `--host=${to.host}`,
      `--port=${to.port}`,
      `--username=${db.user}`,
      `--file=${path.join(FIXTURES, 'postgresql.sql')}`,
      to.name,
    ],
    {
      env: { ...process.env, PGPASSWORD: db.password },
    },
  );
  await checkUpgraded(t, () => startTestService({ ...db.env, ...AGENTS }), stateOf('postgresql'));
});

t.test('MariaDB: a 0.2.0 database (mariadb-dump) upgraded in place', async (t) => {
  const db = await freshDatabase(t, 'mysql');
  if (!db) return;
  const to = partsOf(db);
  await run(
    'sh',
    [
      '-c',
      'mariadb --host="$1" --port="$2" --user="$3" "$4" < "$5"',
      'sh',
      to.host,
      to.port,
      db.user,
      to.name,
      path.join(FIXTURES, 'mariadb.sql'),
    ],
    {
      env: { ...process.env, MYSQL_PWD: db.password },
    },
  );
  await checkUpgraded(t, () => startTestService({ ...db.env, ...AGENTS }), stateOf('mariadb'));
});
