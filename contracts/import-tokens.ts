import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import type { KeyJournal, StoredImportToken } from '../kernel/index.ts';

const at = (hour: number) => new Date(Date.UTC(2026, 0, 1, hour)).toISOString();
const hashOf = (token: Buffer) => createHash('sha256').update(token).digest('hex');

function token(issuedTo: string, createdHour: number, expiresHour: number): StoredImportToken {
  return {
    tokenHash: hashOf(randomBytes(32)),
    importId: randomUUID(),
    issuedTo,
    keyType: 'EC/384/P-384',
    createdAt: at(createdHour),
    expiresAt: at(expiresHour),
    sealingKey: { kekId: 'kek-1', blob: randomBytes(60) },
    privateKey: randomBytes(1800),
  };
}

/** A subject as long as the service accepts them (8 KB): longer than any fixed-width column would hold. */
const LONG_SUBJECT = `svc-${'x'.repeat(8 * 1024 - 4)}`;

/**
 * The import tokens every journal keeps (putImportToken / takeImportToken / liveImportTokens): stored
 * field for field, spent once (also by concurrent callers, also after a restart), never by another
 * caller, never once expired, and expired ones pruned; at most maxLive per caller, also when issued
 * concurrently. Each case uses tokens of its own, so cases may share one storage.
 */
export function importTokenContract(
  t: Test,
  open: () => Promise<KeyJournal>,
  reopen?: () => Promise<KeyJournal>,
): void {
  t.test('import tokens: read back field for field once, by their holder only, across a restart', async (t) => {
    const j = await open();
    const mine = token('alice', 0, 24);
    await j.putImportToken(mine, 10);
    t.equal(await j.takeImportToken(mine.tokenHash, 'mallory', at(1)), undefined, 'another caller cannot spend it');
    t.equal(await j.takeImportToken(hashOf(randomBytes(32)), 'alice', at(1)), undefined, 'an unknown hash is nothing');
    const after = reopen ? (await j.stop?.(), await reopen()) : j;
    t.same(
      await after.takeImportToken(mine.tokenHash, 'alice', at(1)),
      mine,
      'its holder gets it, field for field, after a restart',
    );
    t.equal(await after.takeImportToken(mine.tokenHash, 'alice', at(1)), undefined, 'a spent token is gone');
    const again = reopen ? (await after.stop?.(), await reopen()) : after;
    t.equal(
      await again.takeImportToken(mine.tokenHash, 'alice', at(1)),
      undefined,
      'and stays gone after another restart',
    );
    await again.stop?.();
  });

  t.test(
    'import tokens: a subject of 8 KB holds, counts and spends its tokens; one differing in case is another caller',
    async (t) => {
      const j = await open();
      const long = token(LONG_SUBJECT, 0, 24);
      t.equal(await j.putImportToken(long, 10), true, 'stored');
      t.equal(await j.liveImportTokens(LONG_SUBJECT, at(1)), 1, 'counted');
      t.equal(
        await j.takeImportToken(long.tokenHash, LONG_SUBJECT.toUpperCase(), at(1)),
        undefined,
        'the subject in capitals cannot spend it',
      );
      t.equal(await j.liveImportTokens(LONG_SUBJECT.toUpperCase(), at(1)), 0, 'nor holds it');
      t.same(
        await j.takeImportToken(long.tokenHash, LONG_SUBJECT, at(1)),
        long,
        'its holder spends it, field for field',
      );
      t.equal(await j.liveImportTokens(LONG_SUBJECT, at(1)), 0, 'and holds none then');
      await j.stop?.();
    },
  );

  t.test('import tokens: expired ones are refused and pruned', async (t) => {
    const j = await open();
    const old = token('alice', 0, 24);
    await j.putImportToken(old, 10);
    t.equal(await j.takeImportToken(old.tokenHash, 'alice', at(24)), undefined, 'refused at its expiry time');
    const stale = token('bob', 0, 2);
    await j.putImportToken(stale, 10);
    // Storing a token made later prunes the expired one: even a clock turned back cannot spend it then.
    await j.putImportToken(token('carol', 3, 27), 10);
    t.equal(
      await j.takeImportToken(stale.tokenHash, 'bob', at(1)),
      undefined,
      'an expired token was pruned when a later one was stored',
    );
    await j.stop?.();
  });

  t.test(
    'import tokens: a caller holds at most maxLive unexpired tokens; expired and spent ones do not count',
    async (t) => {
      const j = await open();
      const caller = `holder-${randomUUID()}`;
      const first = token(caller, 0, 24);
      t.equal(await j.putImportToken(first, 2), true);
      t.equal(await j.putImportToken(token(caller, 0, 24), 2), true);
      const third = token(caller, 0, 24);
      t.equal(await j.putImportToken(third, 2), false, 'the third live token is refused');
      t.equal(await j.takeImportToken(third.tokenHash, caller, at(1)), undefined, 'and was not stored');
      t.equal(await j.putImportToken(token(`other-${randomUUID()}`, 0, 24), 2), true, 'another caller is not affected');
      await j.takeImportToken(first.tokenHash, caller, at(1));
      t.equal(await j.putImportToken(token(caller, 1, 25), 2), true, 'a spent token frees its place');
      t.equal(
        await j.putImportToken(token(caller, 24, 48), 2),
        true,
        "and tokens expired at the new one's creation do not count",
      );
      t.equal(await j.liveImportTokens(caller, at(24)), 2, 'liveImportTokens counts the unexpired ones');
      t.equal(await j.liveImportTokens(caller, at(48)), 0, 'and none once all have expired');
      await j.stop?.();
    },
  );

  t.test(
    'import tokens: of concurrent issues to one caller, over every instance, no more than maxLive are stored',
    async (t) => {
      const a = await open();
      // A second instance where the storage is shared by nodes; one node's (SQLite) has a single writer.
      const b = reopen && a.shared ? await reopen() : undefined;
      const journals = b ? [a, b] : [a];
      const caller = `racer-${randomUUID()}`;
      await a.putImportToken(token(caller, 0, 24), 3);
      const stored = await Promise.all(
        Array.from({ length: 12 }, (_, i) => journals[i % journals.length]!.putImportToken(token(caller, 0, 24), 3)),
      );
      t.equal(
        stored.filter(Boolean).length,
        2,
        `2 of 12 concurrent issues over ${journals.length} instance(s) fill the 2 places left`,
      );
      t.equal(await a.liveImportTokens(caller, at(1)), 3, 'the caller holds 3');
      await a.stop?.();
      await b?.stop?.();
    },
  );

  t.test('import tokens: of concurrent spends of one token exactly one wins', async (t) => {
    const [a, b] = [await open(), reopen ? await reopen() : undefined];
    const raced = token('alice', 0, 24);
    await a.putImportToken(raced, 10);
    const journals = b ? [a, b] : [a];
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        journals[i % journals.length]!.takeImportToken(raced.tokenHash, 'alice', at(1)),
      ),
    );
    t.equal(
      results.filter((r) => r !== undefined).length,
      1,
      `exactly one of 8 spends over ${journals.length} instance(s) got the token`,
    );
    await a.stop?.();
    await b?.stop?.();
  });
}
