import type { Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { type AuditRecord, JournalConflict, type KeyEvent, type KeyJournal, NameTaken } from '../kernel/index.ts';
import { changeStampContract } from './journal-change-stamp.ts';
import { locateContract } from './journal-locate.ts';
import { agentRegistryContract } from './agent-registry.ts';
import { importTokenContract } from './import-tokens.ts';
import { nodeRegistryContract } from './node-registry.ts';
import { policyStoreContract } from './policy-store.ts';
import { keyAliasesContract } from './key-aliases.ts';
import { accessKeyStoreContract } from './access-key-store.ts';

const AES_SPEC = {
  name: 'contract',
  algorithm: 'AES',
  sizeBits: 256,
  objectType: 'SymmetricKey',
  exportable: false,
} as const;
/** Key names are unique among live keys: each key of the suite gets its own. */
const uniqueSpec = (name = `contract-${randomUUID()}`) => ({ ...AES_SPEC, name });
const at = '2026-01-01T00:00:00.000Z';
let n = 0;
const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
const record = (id: string, occurredAt: string, resource: string): AuditRecord => ({
  id,
  occurredAt,
  principal: { subject: 'alice', kind: 'Human' },
  operation: 'Activate',
  resource,
  outcome: 'Success',
  context: { 'source.ip': '127.0.0.1' },
  correlationId: `req-${id}`,
});

/**
 * The conformance suite every journal backend passes (OpenBao's ExerciseBackend idea). `open` gives a
 * started journal over fresh storage; `reopen` a new instance over the same storage (where there is one).
 */
export function journalContract(t: Test, open: () => Promise<KeyJournal>, reopen?: () => Promise<KeyJournal>): void {
  agentRegistryContract(t, open, reopen);
  nodeRegistryContract(t, open, reopen);
  policyStoreContract(t, open, reopen);
  keyAliasesContract(t, open, reopen);
  accessKeyStoreContract(t, open, reopen);
  importTokenContract(t, open, reopen);
  locateContract(t, open, reopen);
  changeStampContract(t, open, reopen);
  t.test('appends and loads events in sequence order; lastSeq follows', async (t) => {
    const j = await open();
    const id = newId();
    t.equal(await j.lastSeq(id), 0, 'an unknown key has lastSeq 0');
    const events: KeyEvent[] = [
      { type: 'KeyCreated', at, spec: uniqueSpec(), by: 'alice', materialId: 'm1' },
      { type: 'KeyActivated', at, by: 'alice' },
    ];
    await j.append(id, 0, events);
    t.equal(await j.lastSeq(id), 2);
    await j.append(id, 2, [{ type: 'Rotated', at, by: 'alice', newVersion: 2, materialId: 'm2', policy: 'Manual' }]);
    const loaded = await j.load(id);
    t.same(
      loaded.map((e) => e.seq),
      [1, 2, 3],
    );
    t.same(
      loaded.map((e) => e.event.type),
      ['KeyCreated', 'KeyActivated', 'Rotated'],
    );
    t.same(
      loaded[2]!.event,
      { type: 'Rotated', at, by: 'alice', newVersion: 2, materialId: 'm2', policy: 'Manual' },
      'events read back field for field',
    );
    t.equal(await j.lastSeq(id), 3);
    t.same(await j.load(newId()), [], 'an unknown key has no events');
    await j.stop?.();
  });

  t.test('a second writer of the same sequence number gets JournalConflict and writes nothing', async (t) => {
    const j = await open();
    const id = newId();
    await j.append(id, 0, [{ type: 'KeyCreated', at, spec: uniqueSpec(), by: 'a', materialId: 'm1' }]);
    await t.rejects(
      j.append(id, 0, [{ type: 'KeyCreated', at, spec: uniqueSpec(), by: 'b', materialId: 'm9' }]),
      JournalConflict,
    );
    const results = await Promise.allSettled([
      j.append(id, 1, [{ type: 'KeyActivated', at, by: 'a' }]),
      j.append(id, 1, [{ type: 'Compromised', at, by: 'b', reason: 'race' }]),
    ]);
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'exactly one writer wins');
    t.ok(results.some((r) => r.status === 'rejected' && r.reason instanceof JournalConflict));
    t.equal((await j.load(id)).length, 2);
    await j.stop?.();
  });

  t.test(
    'key names are unique among keys that are not Destroyed: a taken name ' +
      'is NameTaken, writes nothing, and is freed by Destroyed',
    async (t) => {
      const j = await open();
      const name = `unique-${randomUUID()}`;
      const [first, second, third] = [newId(), newId(), newId()];
      t.equal(await j.nameHolder(name), undefined, 'a free name has no holder');
      await j.append(first, 0, [{ type: 'KeyCreated', at, spec: uniqueSpec(name), by: 'a', materialId: 'm1' }]);
      t.equal(await j.nameHolder(name), first);
      await t.rejects(
        j.append(
          second,
          0,
          [{ type: 'KeyCreated', at, spec: uniqueSpec(name), by: 'b', materialId: 'm2' }],
          record(randomUUID(), at, second),
        ),
        NameTaken,
      );
      t.equal(await j.lastSeq(second), 0, 'the refused create wrote no event');
      t.same(
        await j.pendingAudit('9999-01-01T00:00:00.000Z', 1000).then((rs) => rs.filter((r) => r.resource === second)),
        [],
        'nor its audit record',
      );
      t.same(
        (await j.locate({ name }, undefined, 10)).keys.map((k) => k.id),
        [first],
        'nor an index row',
      );
      await j.append(first, 1, [{ type: 'Compromised', at, by: 'a', reason: 'x' }]);
      await t.rejects(
        j.append(second, 0, [{ type: 'KeyCreated', at, spec: uniqueSpec(name), by: 'b', materialId: 'm2' }]),
        NameTaken,
        'a Compromised key still holds its name',
      );
      await j.append(first, 2, [{ type: 'Destroyed', at, by: 'a' }]);
      t.equal(await j.nameHolder(name), undefined, 'Destroyed freed it');
      await j.append(second, 0, [{ type: 'KeyCreated', at, spec: uniqueSpec(name), by: 'b', materialId: 'm2' }]);
      t.equal(await j.nameHolder(name), second, 'and a new key may take it');
      t.equal(await j.nameHolder(`${name} `), undefined, 'names compare exactly: a trailing space is another name');
      await j.append(third, 0, [{ type: 'KeyCreated', at, spec: uniqueSpec(`${name} `), by: 'c', materialId: 'm3' }]);
      t.same(await j.duplicateNames(10), [], 'no name is held twice');
      await j.stop?.();
    },
  );

  t.test('of concurrent creates under one name, exactly one wins', async (t) => {
    const j = await open();
    const name = `raced-${randomUUID()}`;
    const ids = Array.from({ length: 8 }, newId);
    const results = await Promise.allSettled(
      ids.map((id) => j.append(id, 0, [{ type: 'KeyCreated', at, spec: uniqueSpec(name), by: 'a', materialId: 'm1' }])),
    );
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'one create wins');
    t.ok(
      results.every((r) => r.status === 'fulfilled' || r.reason instanceof NameTaken),
      'the others are NameTaken',
    );
    const winner = ids[results.findIndex((r) => r.status === 'fulfilled')]!;
    t.equal(await j.nameHolder(name), winner);
    for (const id of ids) if (id !== winner) t.equal(await j.lastSeq(id), 0, 'a loser wrote nothing');
    await j.stop?.();
  });

  t.test('many concurrent writers of one key: every sequence number is written once, none lost', async (t) => {
    const j = await open();
    const id = newId();
    await j.append(id, 0, [{ type: 'KeyCreated', at, spec: uniqueSpec(), by: 'a', materialId: 'm1' }]);
    // Each writer retries on conflict from the sequence number it reads, as the key service does.
    const writer = async (w: number) => {
      for (let attempt = 0; attempt < 200; attempt++) {
        const seq = await j.lastSeq(id);
        try {
          await j.append(id, seq, [{ type: 'Revoked', at, by: `writer-${w}`, reason: String(w) }]);
          return;
        } catch (err) {
          if (!(err instanceof JournalConflict)) throw err;
        }
      }
      throw new Error(`writer ${w} never got a turn`);
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
    const loaded = await j.load(id);
    t.same(
      loaded.map((e) => e.seq),
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    t.same(
      loaded
        .slice(1)
        .map((e) => (e.event as { by: string }).by)
        .sort(),
      Array.from({ length: 8 }, (_, w) => `writer-${w}`).sort(),
      'each writer appears once',
    );
    await j.stop?.();
  });

  t.test('an audit record appended with events lands in the outbox with them, and only with them', async (t) => {
    const j = await open();
    const id = newId();
    const before = await j.pendingAudit('9999-01-01T00:00:00.000Z', 1000);
    const rec = record(newId(), '2026-01-01T00:00:01.000Z', id);
    await j.append(id, 0, [{ type: 'KeyCreated', at, spec: uniqueSpec(), by: 'a', materialId: 'm1' }], rec);
    const lost = record(newId(), '2026-01-01T00:00:02.000Z', id);
    await t.rejects(
      j.append(id, 0, [{ type: 'KeyCreated', at, spec: uniqueSpec(), by: 'b', materialId: 'm2' }], lost),
      JournalConflict,
    );
    const pending = (await j.pendingAudit('9999-01-01T00:00:00.000Z', 1000)).filter(
      (r) => !before.some((b) => b.id === r.id),
    );
    t.same(pending, [rec], 'the committed change has its record; the refused one has none');
    t.same(
      (await j.pendingAudit('2026-01-01T00:00:01.000Z', 1000)).filter((r) => r.id === rec.id),
      [],
      'before is exclusive',
    );
    await j.ackAudit([rec.id]);
    await j.ackAudit([rec.id]);
    const after = reopen ? (await j.stop?.(), await reopen()) : j;
    t.notOk(
      (await after.pendingAudit('9999-01-01T00:00:00.000Z', 1000)).some((r) => r.id === rec.id),
      'acknowledged records are gone for good',
    );
    await after.stop?.();
  });

  t.test('replay restores every event, across a restart where the backend has storage', async (t) => {
    const j = await open();
    const id = newId();
    const events: KeyEvent[] = [
      { type: 'KeyCreated', at, spec: uniqueSpec(), by: 'a', materialId: 'm1' },
      { type: 'KeyActivated', at, by: 'a' },
      { type: 'Rotated', at, by: 'a', newVersion: 2, materialId: 'm2', policy: 'OpCountBased:10' },
      { type: 'Rotated', at, by: 'a', newVersion: 3, materialId: 'm3', policy: 'OpCountBased:10' },
      { type: 'Compromised', at, by: 'a', reason: 'leak' },
    ];
    await j.append(id, 0, events);
    const replayed = await (reopen ? (await j.stop?.(), reopen()) : Promise.resolve(j));
    t.same(
      (await replayed.load(id)).map((e) => e.event),
      events,
    );
    t.equal(await replayed.lastSeq(id), 5);
    t.ok((await replayed.keyIds()).includes(id));
    await replayed.stop?.();
  });

  t.test('material is stored per material id and deleted with the Destroyed event, in its transaction', async (t) => {
    const j = await open();
    const id = newId();
    await j.putKwk(id, { kekId: 'kek', blob: Buffer.from('wrapped-kwk') });
    await j.putMaterial(id, 'm1', Buffer.from('wrapped-1'));
    await j.putMaterial(id, 'm2', Buffer.from('wrapped-2'));
    t.same(await j.getMaterial(id, 'm1'), Buffer.from('wrapped-1'));
    await j.append(id, 0, [
      { type: 'KeyCreated', at, spec: uniqueSpec(), by: 'a', materialId: 'm1' },
      { type: 'Compromised', at, by: 'a', reason: 'x' },
    ]);
    t.equal(await j.hasMaterial(id), true, 'a change other than Destroyed keeps the material');
    await t.rejects(j.append(id, 1, [{ type: 'Destroyed', at, by: 'b' }]), JournalConflict);
    t.equal(await j.hasMaterial(id), true, 'a Destroyed that lost its race deletes nothing');
    await j.append(id, 2, [{ type: 'Destroyed', at, by: 'a' }]);
    t.equal(await j.hasMaterial(id), false, 'the committed Destroyed deleted the KWK and material');
    const after = reopen ? (await j.stop?.(), await reopen()) : j;
    t.equal(await after.getMaterial(id, 'm1'), undefined);
    t.equal(await after.getMaterial(id, 'm2'), undefined);
    t.equal(await after.getKwk(id), undefined);
    await after.stop?.();
  });

  t.test('erasure tasks: recorded with the delete, durable, done by erasePending, idempotent', async (t) => {
    const j = await open();
    const id = newId();
    const left = newId();
    await j.putKwk(id, { kekId: 'kek', blob: Buffer.from('wrapped-kwk') });
    await j.append(id, 0, [
      { type: 'KeyCreated', at, spec: uniqueSpec(), by: 'a', materialId: 'm1' },
      { type: 'Destroyed', at, by: 'a' },
    ]);
    // Material an older version's destroy left behind: scheduleErasure deletes it and records the task.
    await j.putKwk(left, { kekId: 'kek', blob: Buffer.from('left-kwk') });
    await j.putMaterial(left, 'm1', Buffer.from('left-1'));
    await j.scheduleErasure(left);
    await j.scheduleErasure(left);
    t.equal(await j.hasMaterial(left), false);
    const pending = await j.pendingErasures();
    const reopened = reopen ? (await j.stop?.(), await reopen()) : j;
    t.same(await reopened.pendingErasures(), pending, 'tasks survive a restart');
    const attempt = await reopened.erasePending();
    t.same(attempt.pending, [], `nothing keeps the storage from being erased here (${attempt.reason ?? 'no reason'})`);
    for (const key of pending) t.ok(attempt.erased.includes(key), 'every task read is reported erased');
    t.same(await reopened.pendingErasures(), [], 'and removed');
    t.same(await reopened.erasePending(), { erased: [], pending: [] }, 'an attempt with nothing to do does nothing');
    await reopened.stop?.();
  });

  t.test(
    'key-wrapping keys: stored per key, listed by KEK, replaced only from what they were, erased with the material',
    async (t) => {
      const j = await open();
      const a = newId();
      const b = newId();
      await j.putKwk(a, { kekId: 'kek-old', blob: Buffer.from('wrapped-a') });
      await j.putKwk(b, { kekId: 'kek-new', blob: Buffer.from('wrapped-b') });
      await j.putMaterial(a, 'm1', Buffer.from('sealed-1'));
      t.same(await j.getKwk(a), { kekId: 'kek-old', blob: Buffer.from('wrapped-a') });
      t.equal(await j.getKwk(newId()), undefined);
      t.ok(
        (await j.kwksNotUnder('kek-new', 1000)).some((k) => k.keyId === a),
        'a KWK under another KEK is listed for rewrap',
      );
      t.notOk(
        (await j.kwksNotUnder('kek-new', 1000)).some((k) => k.keyId === b),
        'one under the current KEK is not',
      );
      t.equal(
        await j.replaceKwk(
          a,
          { kekId: 'kek-old', blob: Buffer.from('stale') },
          { kekId: 'kek-new', blob: Buffer.from('x') },
        ),
        false,
        'a replace from a stale value does nothing',
      );
      t.equal(
        await j.replaceKwk(
          a,
          { kekId: 'kek-old', blob: Buffer.from('wrapped-a') },
          { kekId: 'kek-new', blob: Buffer.from('wrapped-a2') },
        ),
        true,
      );
      t.same(await j.getKwk(a), { kekId: 'kek-new', blob: Buffer.from('wrapped-a2') });
      await j.rewrapMaterial(a, 'm1', Buffer.from('sealed-1b'));
      t.same(await j.getMaterial(a, 'm1'), Buffer.from('sealed-1b'));
      t.same(await j.materialIds(a), ['m1']);
      t.equal(await j.hasMaterial(a), true);
      await j.scheduleErasure(a);
      const after = reopen ? (await j.stop?.(), await reopen()) : j;
      t.equal(await after.getKwk(a), undefined, 'the KWK is erased with the key');
      t.equal(await after.hasMaterial(a), false);
      t.same(await after.getKwk(b), { kekId: 'kek-new', blob: Buffer.from('wrapped-b') }, 'other keys keep theirs');
      await after.stop?.();
    },
  );

  t.test(
    'trim: an append with a rekey replaces the KWK and kept material and deletes the erased, in its transaction',
    async (t) => {
      const j = await open();
      const id = newId();
      await j.putKwk(id, { kekId: 'kek', blob: Buffer.from('old-kwk') });
      await j.putMaterial(id, 'm1', Buffer.from('sealed-1'));
      await j.putMaterial(id, 'm2', Buffer.from('sealed-2'));
      await j.putMaterial(id, 'm3', Buffer.from('sealed-3'));
      await j.append(id, 0, [
        { type: 'KeyCreated', at, spec: uniqueSpec(), by: 'a', materialId: 'm1' },
        { type: 'KeyActivated', at, by: 'a' },
      ]);
      const rekey = {
        kwk: { kekId: 'kek', blob: Buffer.from('new-kwk') },
        kept: [{ materialId: 'm3', wrapped: Buffer.from('resealed-3') }],
        erased: ['m1', 'm2'],
      };
      await t.rejects(
        j.append(id, 1, [{ type: 'VersionsTrimmed', at, by: 'b', minVersion: 3 }], undefined, rekey),
        JournalConflict,
      );
      t.same(
        await j.getKwk(id),
        { kekId: 'kek', blob: Buffer.from('old-kwk') },
        'a trim that lost its race changes nothing',
      );
      t.same(await j.getMaterial(id, 'm1'), Buffer.from('sealed-1'));
      t.same(await j.getMaterial(id, 'm3'), Buffer.from('sealed-3'));
      await j.append(id, 2, [{ type: 'VersionsTrimmed', at, by: 'a', minVersion: 3 }], undefined, rekey);
      const after = reopen ? (await j.stop?.(), await reopen()) : j;
      t.same(await after.getKwk(id), { kekId: 'kek', blob: Buffer.from('new-kwk') }, 'the new KWK replaced the old');
      t.same(await after.getMaterial(id, 'm3'), Buffer.from('resealed-3'), 'kept material is sealed anew');
      t.equal(await after.getMaterial(id, 'm1'), undefined, 'erased material is gone');
      t.equal(await after.getMaterial(id, 'm2'), undefined);
      t.same(
        (await after.load(id)).map((e) => e.event.type),
        ['KeyCreated', 'KeyActivated', 'VersionsTrimmed'],
      );
      const attempt = await after.erasePending();
      t.same(attempt.pending, [], `the erase of the old KWK completes (${attempt.reason ?? 'no reason'})`);
      t.same(await after.pendingErasures(), []);
      await after.stop?.();
    },
  );

  t.test('scheduled destructions: listed once due, from any instance, until cancelled or destroyed', async (t) => {
    const j = await open();
    const [soon, later, cancelled] = [newId(), newId(), newId()];
    for (const id of [soon, later, cancelled])
      await j.append(id, 0, [{ type: 'KeyCreated', at, spec: uniqueSpec(), by: 'a', materialId: 'm1' }]);
    await j.append(soon, 1, [{ type: 'DestroyScheduled', at, by: 'a', destroyAt: '2026-02-01T00:00:00.000Z' }]);
    await j.append(later, 1, [{ type: 'DestroyScheduled', at, by: 'a', destroyAt: '2026-03-01T00:00:00.000Z' }]);
    await j.append(cancelled, 1, [{ type: 'DestroyScheduled', at, by: 'a', destroyAt: '2026-01-15T00:00:00.000Z' }]);
    await t.rejects(
      j.append(cancelled, 1, [{ type: 'DestroyScheduled', at, by: 'b', destroyAt: '2026-01-02T00:00:00.000Z' }]),
      JournalConflict,
    );
    const mine = (list: Array<{ keyId: string }>) => list.filter((d) => [soon, later, cancelled].includes(d.keyId));
    t.same(
      mine(await j.dueDestructions('2026-01-10T00:00:00.000Z', 100)),
      [],
      'a schedule that lost its race is not listed, nothing is due yet',
    );
    await j.append(cancelled, 2, [{ type: 'DestroyCancelled', at, by: 'a' }]);
    const after = reopen ? (await j.stop?.(), await reopen()) : j;
    t.same(
      mine(await after.dueDestructions('2026-02-01T00:00:00.000Z', 100)),
      [{ keyId: soon, destroyAt: '2026-02-01T00:00:00.000Z' }],
      'due at its time; the cancelled one is gone',
    );
    t.same(
      mine(await after.dueDestructions('2026-04-01T00:00:00.000Z', 100)).map((d) => d.keyId),
      [soon, later],
      'oldest first',
    );
    await after.append(soon, 2, [{ type: 'Destroyed', at, by: 'svc-system' }]);
    t.same(
      mine(await after.dueDestructions('2026-04-01T00:00:00.000Z', 100)).map((d) => d.keyId),
      [later],
      'a destroyed key is no longer due',
    );
    await after.stop?.();
  });
}
