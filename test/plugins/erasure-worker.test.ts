import t from 'tap';
import { type ErasureAttempt, type KeyJournal, systemClock } from '../../kernel/index.ts';
import { ErasureWorker } from '../../plugins/keys/erasure-worker.ts';
import { until } from '../helpers/until.ts';

const quiet = { debug() {}, info() {}, warn() {}, error() {} } as never;
// A DELETE that started an attempt waits for it this long before answering pending: long enough that a
// loaded machine cannot turn a 'complete' these tests wait for into a 'pending'.
const ANSWER_WITHIN_MS = 60_000;

/** A journal whose erase attempts wait until the test lets each one end, erasing every task read. */
function heldJournal() {
  const tasks = new Set<string>();
  const attempts: Array<() => void> = [];
  const journal = {
    pendingErasures: async () => [...tasks],
    erasePending: async (): Promise<ErasureAttempt> => {
      const read = [...tasks];
      await new Promise<void>((resolve) => attempts.push(resolve));
      for (const k of read) tasks.delete(k);
      return { erased: read, pending: [...tasks] };
    },
  } as unknown as KeyJournal;
  return { journal, tasks, attempts };
}

t.test(
  'a destroy while another erase runs answers pending at once; the next attempt erases it in the background',
  async (t) => {
    const { journal, tasks, attempts } = heldJournal();
    const worker = new ErasureWorker(journal, undefined, systemClock, quiet, ANSWER_WITHIN_MS);
    t.teardown(() => {
      for (const end of attempts) end();
      return worker.stop();
    });
    tasks.add('first');
    const first = worker.afterDestroy('first');
    await until(async () => attempts.length === 1, 'the first attempt to start');

    tasks.add('second');
    const answer = await Promise.race([
      worker.afterDestroy('second'),
      new Promise((resolve) => setImmediate(() => resolve('it waited'))),
    ]);
    t.equal(answer, 'pending', 'the second DELETE does not queue behind the running erase');
    attempts[0]!();
    t.equal(await first, 'complete', 'the DELETE that started the attempt waited for it');
    await until(async () => attempts.length === 2, 'the attempt that covers the second key');
    attempts[1]!();
    await until(async () => worker.count === 0, 'the second key erased in the background');
    t.equal(tasks.size, 0);
  },
);

t.test(
  "destroys in a loop spend the attempts' budget: then they answer pending at once and attempts are spaced out",
  async (t) => {
    const { journal, tasks, attempts } = heldJournal();
    const worker = new ErasureWorker(journal, undefined, systemClock, quiet, ANSWER_WITHIN_MS);
    t.teardown(() => {
      for (const end of attempts) end();
      return worker.stop();
    });
    tasks.add('slow');
    const slow = worker.afterDestroy('slow');
    await until(async () => attempts.length === 1, 'the attempt to start');
    // The attempt holds the table for longer than the whole budget (250 ms): real time, which is what the budget
    // counts.
    await new Promise((resolve) => setTimeout(resolve, 300));
    attempts[0]!();
    t.equal(await slow, 'complete');
    tasks.add('next');
    const answer = await Promise.race([
      worker.afterDestroy('next'),
      new Promise((resolve) => setImmediate(() => resolve('it waited'))),
    ]);
    t.equal(
      answer,
      'pending',
      'with the budget overspent, the next DELETE answers before any timer or I/O: it does not wait',
    );
    t.equal(attempts.length, 1, 'and no attempt started yet: it waits for the budget to refill');
  },
);
