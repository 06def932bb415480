import type { Test } from 'tap';
import type { KeyEvent, KeyJournal } from '../kernel/index.ts';
import { until } from './until.ts';

const at = '2026-01-01T00:00:00.000Z';
const created = (name: string): KeyEvent => ({
  type: 'KeyCreated',
  at,
  spec: { name, algorithm: 'AES', sizeBits: 256, objectType: 'SymmetricKey', exportable: false },
  by: 'alice',
  materialId: 'm1',
});

/**
 * What KeyStore relies on when it skips the lastSeq check of a cached key: a journal's change stamp, where
 * it has one, stays while nothing is written and moves once a key event is committed, by another instance
 * over the same storage (another node) or by this one. A journal without a stamp has nothing to check here:
 * every use of a cached key asks lastSeq.
 */
export function changeStampContract(t: Test, open: () => Promise<KeyJournal>, reopen?: () => Promise<KeyJournal>) {
  t.test(
    'a change stamp stays while nothing is written and moves once another instance commits a key event',
    async (t) => {
      const a = await open();
      const b = reopen ? await reopen() : undefined;
      t.teardown(async () => {
        await a.stop?.();
        await b?.stop?.();
      });
      const first = a.changeStamp?.();
      if (first === undefined || !b) {
        t.equal(first, undefined, 'no stamp: every use of a cached key asks lastSeq');
        return;
      }
      const id = '00000000-0000-4000-8000-00000000c5a1';
      await a.lastSeq(id);
      await a.load(id);
      t.equal(a.changeStamp?.(), first, 'reads leave it');
      await b.append(id, 0, [created(`stamp-${process.pid}-${Date.now()}`)]);
      await until(() => a.changeStamp?.() !== first, "another instance's commit to move the stamp");
      const second = a.changeStamp?.();
      t.type(second, 'number', 'it moved to another number, still vouching');
      await a.append(id, 1, [{ type: 'KeyActivated', at, by: 'alice' }]);
      await until(() => a.changeStamp?.() !== second, "this instance's own commit to move it");
      t.not(a.changeStamp?.(), second, 'its own commit moved it too');
    },
  );
}
