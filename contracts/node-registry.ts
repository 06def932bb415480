import type { Test } from 'tap';
import type { KeyJournal, RecordedAuditHead } from '../kernel/index.ts';

let n = 0;
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
const nodeName = (label: string) => `${label}-${++n}-${Math.random().toString(36).slice(2, 8)}`;
const head = (rowId: number, count: number): RecordedAuditHead => ({
  rowId,
  hash: String(rowId % 10).repeat(64),
  occurredAt: at(rowId % 60),
  count,
  recordedAt: at(59),
});

/**
 * The conformance suite of the node registry every journal keeps (journal.nodes), which audit
 * verification checks chains against. Several cases may share one storage, so each uses its own node
 * names. `reopen` gives a new instance over the same storage (where there is one).
 */
export function nodeRegistryContract(
  t: Test,
  open: () => Promise<KeyJournal>,
  reopen?: () => Promise<KeyJournal>,
): void {
  t.test(
    'node registry: register is idempotent, recordHead keeps the latest head, list is ordered by node id',
    async (t) => {
      const j = await open();
      const [b, a] = [nodeName('b'), nodeName('a')];
      await j.nodes.register(b, at(1));
      await j.nodes.register(b, at(2));
      await j.nodes.register(a, at(3));
      let mine = (await j.nodes.list()).filter((x) => x.node === a || x.node === b);
      t.same(
        mine.map((x) => x.node),
        [a, b].sort(),
        'ordered by node id',
      );
      t.same(
        mine.find((x) => x.node === b),
        { node: b, registeredAt: at(1), origin: 'boot' },
        'a second registration changes nothing',
      );

      await j.nodes.recordHead(b, head(1000, 1000));
      await j.nodes.recordHead(b, head(2001, 2000));
      await j.nodes.register(b, at(4));
      mine = (await j.nodes.list()).filter((x) => x.node === b);
      t.same(
        mine[0],
        { node: b, registeredAt: at(1), origin: 'boot', head: head(2001, 2000) },
        'the latest head, field for field; registering again keeps it',
      );

      await j.nodes.recordHead(b, { ...head(2002, 2001), closed: true });
      t.same(
        (await j.nodes.list()).find((x) => x.node === b)?.head,
        { ...head(2002, 2001), closed: true },
        'a head recorded at stop says it is closed',
      );
      await j.nodes.recordHead(b, { ...head(2002, 2001), closed: false });
      t.same(
        (await j.nodes.list()).find((x) => x.node === b)?.head,
        head(2002, 2001),
        'and recorded open again, it no longer does',
      );

      const c = nodeName('c');
      await j.nodes.recordHead(c, head(7, 7));
      t.match(
        (await j.nodes.list()).find((x) => x.node === c),
        { node: c, origin: 'boot', head: head(7, 7) },
        'recording a head registers its node',
      );
      await j.stop?.();
    },
  );

  t.test('node registry: adoption of an older audit trail happens once', async (t) => {
    const j = await open();
    const first = await j.nodes.adoption();
    const [old1, old2, booted] = [nodeName('old'), nodeName('old'), nodeName('booted')];
    await j.nodes.register(booted, at(1));
    await j.nodes.adopt([old1, booted], 42, at(5));
    const adopted = await j.nodes.adoption();
    if (first) {
      t.same(adopted, first, 'a journal that adopted before keeps its adoption');
      t.notOk(
        (await j.nodes.list()).some((x) => x.node === old1),
        'and registers nothing new',
      );
    } else {
      t.same(adopted, { adoptedAt: at(5), legacyMaxId: 42 });
      const list = await j.nodes.list();
      t.match(
        list.find((x) => x.node === old1),
        { origin: 'upgrade', registeredAt: at(5) },
      );
      t.match(
        list.find((x) => x.node === booted),
        { origin: 'boot', registeredAt: at(1) },
        'a node that registered itself stays as it was',
      );
    }
    await j.nodes.adopt([old2], 99, at(9));
    t.same(await j.nodes.adoption(), adopted, 'a second adoption changes nothing');
    t.notOk(
      (await j.nodes.list()).some((x) => x.node === old2),
      'nor registers its nodes',
    );
    await j.stop?.();
  });

  t.test(
    'node registry: the pruned row moves forward only; pruned rows of an older trail are adopted once',
    async (t) => {
      const j = await open();
      const node = nodeName('pruned');
      const pruned = (rowId: number) => ({ rowId, hash: String(rowId % 10).repeat(64), recordedAt: at(rowId % 60) });
      await j.nodes.register(node, at(1));
      await j.nodes.recordPruned(node, pruned(20));
      await j.nodes.recordPruned(node, pruned(10));
      t.same(
        (await j.nodes.list()).find((x) => x.node === node)?.pruned,
        pruned(20),
        'a pruned row behind the recorded one changes nothing',
      );
      await j.nodes.recordPruned(node, pruned(30));
      t.same(
        (await j.nodes.list()).find((x) => x.node === node),
        { node, registeredAt: at(1), origin: 'boot', pruned: pruned(30) },
      );

      const ghost = nodeName('ghost');
      await j.nodes.recordPruned(ghost, pruned(5));
      t.notOk(
        (await j.nodes.list()).some((x) => x.node === ghost),
        'a prune registers no node',
      );

      const [older, later] = [nodeName('older'), nodeName('later')];
      await j.nodes.register(older, at(2));
      await j.nodes.register(later, at(2));
      const before = await j.nodes.prunedAdopted();
      await j.nodes.adoptPruned([
        { node: older, pruned: pruned(7) },
        { node: ghost, pruned: pruned(7) },
      ]);
      t.ok(await j.nodes.prunedAdopted(), 'adopted');
      if (!before)
        t.match(
          (await j.nodes.list()).find((x) => x.node === older),
          { origin: 'boot', pruned: pruned(7) },
        );
      t.notOk(
        (await j.nodes.list()).some((x) => x.node === ghost),
        'nor does the adoption',
      );
      await j.nodes.adoptPruned([{ node: later, pruned: pruned(8) }]);
      t.notOk((await j.nodes.list()).find((x) => x.node === later)?.pruned, 'a second adoption records nothing');
      await j.stop?.();
    },
  );

  if (reopen) {
    t.test('node registry: nodes and heads survive a restart', async (t) => {
      const j = await open();
      const node = nodeName('kept');
      await j.nodes.register(node, at(1));
      await j.nodes.recordHead(node, head(3000, 2999));
      await j.stop?.();
      const again = await reopen();
      t.same(
        (await again.nodes.list()).find((x) => x.node === node),
        { node, registeredAt: at(1), origin: 'boot', head: head(3000, 2999) },
      );
      await again.stop?.();
    });
  }
}
