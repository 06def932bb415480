import type { Worker } from 'node:worker_threads';

/**
 * Ends a worker thread as a crash would and waits until it has ended. A reply that lands while the thread ends
 * leaves it unreferenced (a thread that owes nothing never keeps the process alive), and Node keeps no process
 * alive for the pending terminate() of an unreferenced worker: the test file would exit with its test
 * unfinished. An interval holds the process until the thread is gone.
 */
export async function terminateThread(worker: Worker): Promise<void> {
  const hold = setInterval(() => {}, 1_000);
  try {
    await worker.terminate();
  } finally {
    clearInterval(hold);
  }
}
