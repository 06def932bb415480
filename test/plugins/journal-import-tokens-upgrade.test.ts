import path from 'node:path';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import knexFactory from 'knex';
import t, { type Test } from 'tap';
import { serverConnection } from '../../plugins/sql-support/connection-url.ts';
import { KnexJournal } from '../../plugins/journal/knex/knex-journal.ts';
import { journalMigrations } from '../../plugins/journal/knex/migrations.ts';
import type { KnexSettings } from '../../plugins/sql-support/knex-settings.ts';
import { migrationSource } from '../../plugins/sql-support/migration-source.ts';
import { serverKnexSettings } from '../../plugins/sql-support/server-connection.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { freshDatabase, type ServerKind } from '../helpers/databases.ts';
import { tempDir } from '../helpers/service.ts';

/**
 * A journal with import tokens issued before they were found by the hash of their caller's subject
 * (migration 014): the upgrade keeps them, each spendable by its caller and counted against its cap.
 */
async function keepsTokens(t: Test, settings: () => KnexSettings): Promise<void> {
  const before = knexFactory(settings().config);
  await before.migrate.latest({
    migrationSource: migrationSource(journalMigrations.filter((m) => m.name < '014')),
    tableName: 'svc_journal_migrations',
  });
  const row = {
    token_hash: createHash('sha256').update(randomBytes(32)).digest('hex'),
    import_id: randomUUID(),
    issued_to: 'Alice',
    key_type: 'AES/256',
    created_at: '2026-01-01T00:00:00.000Z',
    expires_at: '2026-01-02T00:00:00.000Z',
    kek_id: 'kek-1',
    sealing_key: randomBytes(60),
    private_key: randomBytes(100),
  };
  await before('svc_import_tokens').insert(row);
  await before.destroy();

  const j = new KnexJournal(settings());
  await j.start();
  t.teardown(() => j.stop());
  const now = '2026-01-01T01:00:00.000Z';
  t.equal(await j.liveImportTokens('Alice', now), 1, 'the token counts for its caller');
  t.equal(
    await j.takeImportToken(row.token_hash, 'alice', now),
    undefined,
    'another subject (differing in case only) cannot spend it',
  );
  t.match(
    await j.takeImportToken(row.token_hash, 'Alice', now),
    { tokenHash: row.token_hash, issuedTo: 'Alice', importId: row.import_id },
    'its caller spends it',
  );
}

t.test('sqlite: import tokens issued before migration 014 are kept', async (t) => {
  const file = path.join(tempDir(), 'journal.db');
  await keepsTokens(t, () => sqliteKnexSettings(file));
});

for (const kind of ['postgresql', 'mysql'] as ServerKind[]) {
  t.test(`${kind}: import tokens issued before migration 014 are kept`, async (t) => {
    const db = await freshDatabase(t, kind);
    if (!db) return;
    await keepsTokens(t, () =>
      serverKnexSettings(kind, serverConnection(db.url, kind, db.user, db.password), {
        max: 5,
        acquireTimeoutMs: 3000,
        bootTimeoutMs: 10000,
      }),
    );
  });
}
