import type { Test } from 'tap';
import type { KeyEvent } from '../../kernel/model/index.ts';
import { JournalConflict, type KeyJournal } from '../../kernel/ports/journal.ts';
import { foldEvents } from '../../plugins/keys/key-state.ts';

const spec = { name: 'contract', algorithm: 'AES', sizeBits: 256, objectType: 'SymmetricKey' } as const;
const at = '2026-01-01T00:00:00.000Z';
let n = 0;
const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;

/**
 * The conformance suite every journal backend passes (OpenBao's ExerciseBackend idea). `open` gives a
 * started journal over fresh storage; `reopen` a new instance over the same storage (where there is one).
 */
export function journalContract(t: Test, open: () => Promise<KeyJournal>, reopen?: () => Promise<KeyJournal>): void {
  t.test('appends and loads events in sequence order', async (t) => {
    const j = await open();
    const id = newId();
    const events: KeyEvent[] = [
      { type: 'KeyCreated', at, spec, by: 'alice', materialId: 'm1' },
      { type: 'KeyActivated', at, by: 'alice' },
    ];
    await j.append(id, 0, events);
    await j.append(id, 2, [{ type: 'Rotated', at, by: 'alice', newVersion: 2, materialId: 'm2', policy: 'Manual' }]);
    const loaded = await j.load(id);
    t.same(loaded.map((e) => e.seq), [1, 2, 3]);
    t.same(loaded.map((e) => e.event.type), ['KeyCreated', 'KeyActivated', 'Rotated']);
    t.same(await j.load(newId()), [], 'an unknown key has no events');
    await j.stop?.();
  });

  t.test('a second writer of the same sequence number gets JournalConflict and writes nothing', async (t) => {
    const j = await open();
    const id = newId();
    await j.append(id, 0, [{ type: 'KeyCreated', at, spec, by: 'a', materialId: 'm1' }]);
    await t.rejects(j.append(id, 0, [{ type: 'KeyCreated', at, spec, by: 'b', materialId: 'm9' }]), JournalConflict);
    const results = await Promise.allSettled([
      j.append(id, 1, [{ type: 'KeyActivated', at, by: 'a' }]),
      j.append(id, 1, [{ type: 'Compromised', at, by: 'b', reason: 'race' }]),
    ]);
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'exactly one writer wins');
    t.ok(results.some((r) => r.status === 'rejected' && r.reason instanceof JournalConflict));
    t.equal((await j.load(id)).length, 2);
    await j.stop?.();
  });

  t.test('replay restores state and currentVersion', async (t) => {
    const j = await open();
    const id = newId();
    await j.append(id, 0, [
      { type: 'KeyCreated', at, spec, by: 'a', materialId: 'm1' },
      { type: 'KeyActivated', at, by: 'a' },
      { type: 'Rotated', at, by: 'a', newVersion: 2, materialId: 'm2', policy: 'OpCountBased:10' },
      { type: 'Rotated', at, by: 'a', newVersion: 3, materialId: 'm3', policy: 'OpCountBased:10' },
      { type: 'Compromised', at, by: 'a', reason: 'leak' },
    ]);
    const replayed = await (reopen ? (await j.stop?.(), reopen()) : Promise.resolve(j));
    const key = foldEvents(await replayed.load(id))!;
    t.match(key, { id, state: 'Compromised', currentVersion: 3, rotationPolicy: 'OpCountBased:10', reason: 'leak', seq: 5 });
    t.same(Object.keys(key.versions), ['1', '2', '3']);
    t.ok((await replayed.keyIds()).includes(id));
    await replayed.stop?.();
  });

  t.test('material is stored per material id and erased for good', async (t) => {
    const j = await open();
    const id = newId();
    await j.putMaterial(id, 'm1', Buffer.from('wrapped-1'));
    await j.putMaterial(id, 'm2', Buffer.from('wrapped-2'));
    t.same(await j.getMaterial(id, 'm1'), Buffer.from('wrapped-1'));
    await j.eraseMaterial(id);
    await j.eraseMaterial(id);
    const after = reopen ? (await j.stop?.(), await reopen()) : j;
    t.equal(await after.getMaterial(id, 'm1'), undefined);
    t.equal(await after.getMaterial(id, 'm2'), undefined);
    await after.stop?.();
  });
}
