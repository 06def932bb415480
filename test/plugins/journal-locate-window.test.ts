import path from 'node:path';
import { randomUUID } from 'node:crypto';
import knexFactory from 'knex';
import t from 'tap';
import { KnexJournal } from '../../plugins/journal/knex/knex-journal.ts';
import { locateKeys } from '../../plugins/journal/knex/knex-key-index.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { tempDir } from '../helpers/service.ts';

/**
 * A filter no index serves (a name glob, the algorithm) reads a bounded window of rows in order and,
 * when the window ends before `limit` matches, says where it stopped; reading on from there finds
 * every match once.
 */
t.test('SQL key index: a glob reads at most a window of rows and answers where it stopped', async (t) => {
  const file = path.join(tempDir(), 'journal.db');
  const journal = new KnexJournal(sqliteKnexSettings(file));
  await journal.start();
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const id = randomUUID();
    ids.push(id);
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    await journal.append(id, 0, [
      {
        type: 'KeyCreated',
        at,
        by: 'a',
        owner: 'a',
        materialId: 'm',
        spec: {
          name: i % 5 === 0 ? `rare-${i}` : `common-${i}`,
          algorithm: 'AES',
          sizeBits: 256,
          objectType: 'SymmetricKey',
          exportable: false,
        },
      },
    ]);
  }
  await journal.stop();
  const db = knexFactory(sqliteKnexSettings(file).config);
  t.teardown(() => db.destroy());
  const newest = [...ids].reverse();

  const first = await locateKeys(db, { name: 'rare-*' }, undefined, 10, 4);
  t.same(first.keys, [], 'the first window of 4 rows (the 20th to the 17th key) holds no match');
  t.same(first.scannedTo, { createdAt: '2026-01-01T00:00:16.000Z', id: ids[16] }, 'and the read says where it stopped');
  const every: string[] = [];
  let reads = 0;
  for (let after: { createdAt: string; id: string } | undefined; ; reads++) {
    const read = await locateKeys(db, { name: 'rare-*' }, after, 10, 4);
    every.push(...read.keys.map((k) => k.id));
    if (!read.scannedTo) break;
    after = read.scannedTo;
  }
  t.same(
    every,
    newest.filter((_, i) => (19 - i) % 5 === 0),
    'reading on finds every match once, in order',
  );
  t.equal(reads, 5, 'five full windows of four rows, then a read past the end');
  const filled = await locateKeys(db, { name: 'common-*' }, undefined, 2, 4);
  t.same(
    filled.keys.map((k) => k.id),
    newest.slice(0, 2),
  );
  t.notOk(filled.scannedTo, 'a read that fills its limit names no stop: the caller goes on from its last key');
  const indexed = await locateKeys(db, { name: 'rare-5' }, undefined, 10, 4);
  t.same(
    indexed.keys.map((k) => k.id),
    [ids[5]],
    'an exact name is matched in the query: no window',
  );
  t.notOk(indexed.scannedTo);
});
