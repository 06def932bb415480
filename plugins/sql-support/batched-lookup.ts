/**
 * Coalesces lookups made in the same event-loop turn into one query (the DataLoader idea). A lookup
 * always joins a batch that has not been sent yet, so its answer reflects the database at some moment
 * after the lookup was asked for: batching saves round trips without serving an answer older than the
 * question.
 */
export class BatchedLookup<V> {
  private pending = new Map<string, Array<{ resolve: (v: V) => void; reject: (err: unknown) => void }>>();

  constructor(
    private readonly fetch: (keys: string[]) => Promise<Map<string, V>>,
    private readonly missing: V,
  ) {}

  get(key: string): Promise<V> {
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) setImmediate(() => void this.send());
      const waiters = this.pending.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.pending.set(key, [{ resolve, reject }]);
    });
  }

  private async send(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    try {
      const found = await this.fetch([...batch.keys()]);
      for (const [key, waiters] of batch) for (const w of waiters) w.resolve(found.get(key) ?? this.missing);
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
    }
  }
}
