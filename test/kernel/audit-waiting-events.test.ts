import t from 'tap';
import type { AuditEvent } from '../../kernel/audit/canonical-event.ts';
import { WaitingEvents } from '../../kernel/audit/waiting-events.ts';

const event = (id: number, correlationId: string) => ({ id: String(id), correlationId }) as AuditEvent;

/** The queue as a plain array, taken from with splice: slow but plainly right. */
function referenceTakeFree(
  queue: AuditEvent[],
  size: number,
  scanLimit: number,
  isHeld: (c: string) => boolean,
): AuditEvent[] {
  const taken: AuditEvent[] = [];
  const held = new Set<string>();
  const kept: AuditEvent[] = [];
  let end = 0;
  for (; end < Math.min(queue.length, scanLimit) && taken.length < size; end++) {
    const e = queue[end]!;
    if (!held.has(e.correlationId) && !isHeld(e.correlationId)) taken.push(e);
    else {
      held.add(e.correlationId);
      kept.push(e);
    }
  }
  if (taken.length > 0) queue.splice(0, end, ...kept);
  return taken;
}

t.test(
  'takes and skips exactly as a plain array would, over many thousands of events and every kind of take',
  async (t) => {
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const queue = new WaitingEvents();
    const reference: AuditEvent[] = [];
    const busy = new Set<string>();
    let next = 0;
    let mismatches = 0;
    for (let step = 0; step < 20_000; step++) {
      // Pushes outnumber takes for the first half, so thousands wait and the front is cut off many times.
      const op = random(10);
      if (op < (step < 10_000 ? 7 : 2)) {
        const e = event(next++, `c${random(40)}`);
        queue.push(e);
        reference.push(e);
      } else if (op < (step < 10_000 ? 9 : 7)) {
        if (random(2) === 0) busy.add(`c${random(40)}`);
        else busy.delete(`c${random(40)}`);
        const size = 1 + random(3);
        const scan = 1 + random(50);
        const got = queue.takeFree(size, scan, (c) => busy.has(c)).map((e) => e.id);
        const want = referenceTakeFree(reference, size, scan, (c) => busy.has(c)).map((e) => e.id);
        if (got.join() !== want.join()) mismatches++;
      } else {
        const n = random(4);
        if (
          queue
            .takeFront(n)
            .map((e) => e.id)
            .join() !==
          reference
            .splice(0, n)
            .map((e) => e.id)
            .join()
        )
          mismatches++;
      }
      if (queue.length !== reference.length) mismatches++;
    }
    t.equal(mismatches, 0, 'every take and every length matched');
    t.same(
      queue.takeAll().map((e) => e.id),
      reference.map((e) => e.id),
      'what is left, in order',
    );
    t.equal(queue.length, 0);
  },
);

t.test('a held correlation keeps its later events behind, in order, while others pass', async (t) => {
  const queue = new WaitingEvents();
  for (const [i, c] of [
    [1, 'a'],
    [2, 'b'],
    [3, 'a'],
    [4, 'c'],
  ] as const)
    queue.push(event(i, c));
  t.same(
    queue.takeFree(2, 100, (c) => c === 'a').map((e) => e.id),
    ['2', '4'],
  );
  t.same(
    queue.takeFree(5, 100, (c) => c === 'a').map((e) => e.id),
    [],
    'nothing free: nothing taken',
  );
  t.equal(queue.length, 2);
  t.same(
    queue.takeFree(5, 100, () => false).map((e) => e.id),
    ['1', '3'],
  );
});
