/**
 * Starts `n` requests at `rate` a second from now, each when it is due whatever the answers (open loop,
 * as independent clients arrive), and reports each answer with the time it was due, so that latency
 * includes any wait a slow server caused.
 */
export async function openLoop<T>(
  n: number,
  rate: number,
  start: () => Promise<T>,
  done: (answer: T, due: number) => void,
): Promise<void> {
  const t0 = performance.now();
  const pending = new Set<Promise<void>>();
  for (let i = 0; i < n; ) {
    const now = performance.now();
    // Every request due by now goes (a timer may fire late), then a wait for the next one.
    for (; i < n && t0 + (i * 1000) / rate <= now; i++) {
      const due = t0 + (i * 1000) / rate;
      const p: Promise<void> = start()
        .then((answer) => done(answer, due))
        .finally(() => pending.delete(p));
      pending.add(p);
    }
    if (i < n)
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, t0 + (i * 1000) / rate - performance.now())));
  }
  await Promise.all(pending);
}
