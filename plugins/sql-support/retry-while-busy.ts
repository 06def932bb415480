const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SQLite's answer when another connection holds the write lock or moved the snapshot a transaction read. */
export function isSqliteBusy(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (e?.code ?? '').startsWith('SQLITE_BUSY') || /database is locked/i.test(e?.message ?? '');
}

/**
 * Runs a transaction that reads, then writes, again while SQLite answers busy. SQLite's busy timeout does
 * not cover such a transaction: when another process committed after its read (several nodes starting
 * together on one file), its write fails at once with "database is locked". The other databases never
 * answer so, and run it once.
 */
export async function retryWhileBusy<T>(work: () => Promise<T>, attempts = 20): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts || !isSqliteBusy(err)) throw err;
      await pause(Math.min(250, 10 * attempt) * (0.5 + Math.random()));
    }
  }
}
