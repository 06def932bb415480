/** What one background reader did while it ran. */
export interface LoopStats {
  /** Calls that answered 2xx, and how long each took (ms). */
  completed: number[];
  /** Calls answered 429 (another one of its kind was running on the node). */
  refused: number;
  /** Any other answer or a failed connection, with the first one's text. */
  failed: number;
  firstFailure?: string;
}

/**
 * A Human who calls one GET endpoint again and again (`GET /v1/audit/verify`, `GET /v1/advisor/scan`)
 * until stopped; a 429 is honoured by waiting its Retry-After, as a client should. `stop` resolves once
 * the call in flight has answered, so the next measurement starts on a node no long read still holds.
 */
export function readerLoop(url: string, user = 'bench-auditor'): { stop(): Promise<LoopStats> } {
  const stats: LoopStats = { completed: [], refused: 0, failed: 0 };
  let stopping = false;
  const running = (async () => {
    while (!stopping) {
      const t0 = performance.now();
      try {
        const res = await fetch(url, { headers: { 'X-Svc-User': user } });
        const text = await res.text();
        if (res.ok) stats.completed.push(performance.now() - t0);
        else if (res.status === 429) {
          stats.refused++;
          await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
        } else {
          stats.failed++;
          stats.firstFailure ??= `${res.status} ${text.slice(0, 300)}`;
        }
      } catch (err) {
        stats.failed++;
        stats.firstFailure ??= (err as Error).message;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await running;
      return stats;
    },
  };
}
