import path from 'node:path';
import { randomUUID } from 'node:crypto';
import knexFactory from 'knex';
import t, { type Test } from 'tap';
import { serverConnection } from '../../plugins/sql-support/connection-url.ts';
import type { KeyEvent } from '../../kernel/index.ts';
import { KnexJournal } from '../../plugins/journal/knex/knex-journal.ts';
import type { KnexSettings } from '../../plugins/sql-support/knex-settings.ts';
import { serverKnexSettings } from '../../plugins/sql-support/server-connection.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { freshDatabase, type ServerKind } from '../helpers/databases.ts';
import { tempDir } from '../helpers/service.ts';

const spec = { name: 'old', algorithm: 'AES', sizeBits: 256, objectType: 'SymmetricKey', exportable: false } as const;

/**
 * A journal written before the key index existed (the index dropped and migration 011 unrecorded, as
 * a 0.x database before the upgrade) is indexed from its events when the upgraded journal starts.
 */
async function backfills(t: Test, settings: () => KnexSettings): Promise<void> {
  const open = async () => {
    const j = new KnexJournal(settings());
    await j.start();
    return j;
  };
  const j = await open();
  const ids = Array.from({ length: 7 }, () => randomUUID());
  const events = (i: number): KeyEvent[] => [
    // A 0.1 event names no owner: its creator owns the key.
    {
      type: 'KeyCreated',
      at: `2025-06-0${i + 1}T00:00:00.000Z`,
      spec: { ...spec, name: `old-${i}` },
      by: `user-${i % 2}`,
      materialId: `m${i}`,
      ...(i === 0 ? {} : { owner: `user-${i % 2}` }),
    },
    ...(i >= 2 ? [{ type: 'KeyActivated', at: '2025-07-01T00:00:00.000Z', by: 'x' } as const] : []),
    ...(i === 3
      ? [
          {
            type: 'Rotated',
            at: '2025-07-02T00:00:00.000Z',
            by: 'x',
            newVersion: 2,
            materialId: 'r',
            policy: 'Manual',
          } as const,
        ]
      : []),
    ...(i === 4 ? [{ type: 'Revoked', at: '2025-07-02T00:00:00.000Z', by: 'x' } as const] : []),
    ...(i === 5
      ? [
          { type: 'Compromised', at: '2025-07-02T00:00:00.000Z', by: 'x', reason: 'r' } as const,
          { type: 'Destroyed', at: '2025-07-03T00:00:00.000Z', by: 'x' } as const,
        ]
      : []),
  ];
  for (const [i, id] of ids.entries()) await j.append(id, 0, events(i));
  await j.stop();
  const raw = knexFactory(settings().config);
  await raw.schema.dropTable('svc_key_index');
  await raw('svc_journal_migrations').where({ name: '011_key_index' }).delete();
  await raw.destroy();

  const upgraded = await open();
  const found = (await upgraded.locate({ name: 'old-*' }, undefined, 100)).keys;
  t.same(
    found.map((k) => k.id),
    [...ids].reverse(),
    'every key is indexed, newest first',
  );
  t.same(
    found.map((k) => k.state).reverse(),
    ['PreActive', 'PreActive', 'Active', 'Active', 'Deactivated', 'Destroyed', 'Active'],
    'each in the state its events leave',
  );
  t.same(
    found.at(-1),
    {
      id: ids[0],
      name: 'old-0',
      algorithm: 'AES',
      state: 'PreActive',
      owner: 'user-0',
      createdAt: '2025-06-01T00:00:00.000Z',
    },
    'a 0.1 key is owned by its creator',
  );
  await upgraded.append(ids[1]!, 1, [{ type: 'KeyActivated', at: '2025-08-01T00:00:00.000Z', by: 'x' }]);
  t.same(
    (await upgraded.locate({ name: 'old-1' }, undefined, 10)).keys.map((k) => k.state),
    ['Active'],
    'and kept up to date from then on',
  );
  await upgraded.stop();

  // A node of the older version, during a rolling upgrade, appends events without touching the index:
  // a new key, and a change of state of an indexed one. The next start of an upgraded node takes them in.
  const old = knexFactory(settings().config);
  const lateKey = randomUUID();
  await old('svc_key_events').insert([
    {
      key_id: lateKey,
      seq: 1,
      type: 'KeyCreated',
      payload: JSON.stringify({
        type: 'KeyCreated',
        at: '2025-09-01T00:00:00.000Z',
        spec: { ...spec, name: 'old-late' },
        by: 'user-9',
        owner: 'user-9',
        materialId: 'late',
      }),
      occurred_at: '2025-09-01T00:00:00.000Z',
    },
    {
      key_id: lateKey,
      seq: 2,
      type: 'KeyActivated',
      payload: JSON.stringify({ type: 'KeyActivated', at: '2025-09-01T00:00:00.000Z', by: 'user-9' }),
      occurred_at: '2025-09-01T00:00:00.000Z',
    },
    {
      key_id: ids[2]!,
      seq: 3,
      type: 'Revoked',
      payload: JSON.stringify({ type: 'Revoked', at: '2025-09-02T00:00:00.000Z', by: 'x' }),
      occurred_at: '2025-09-02T00:00:00.000Z',
    },
  ]);
  await old.destroy();
  const restarted = await open();
  const late = (await restarted.locate({ name: 'old-*' }, undefined, 100)).keys;
  t.match(
    late[0],
    { id: lateKey, name: 'old-late', state: 'Active', owner: 'user-9' },
    'a key an older node created is indexed at the next start',
  );
  t.equal(late.find((k) => k.id === ids[2])?.state, 'Deactivated', 'and a change an older node made is taken in');
  await restarted.stop();
}

t.test('sqlite: the upgrade that adds the key index indexes the keys already written at start', async (t) => {
  const file = path.join(tempDir(), 'journal.db');
  await backfills(t, () => sqliteKnexSettings(file));
});

for (const kind of ['postgresql', 'mysql'] as ServerKind[]) {
  t.test(`${kind}: the upgrade that adds the key index indexes the keys already written at start`, async (t) => {
    const db = await freshDatabase(t, kind);
    if (!db) return;
    await backfills(t, () =>
      serverKnexSettings(kind, serverConnection(db.url, kind, db.user, db.password), {
        max: 5,
        acquireTimeoutMs: 3000,
        bootTimeoutMs: 10000,
      }),
    );
  });
}
