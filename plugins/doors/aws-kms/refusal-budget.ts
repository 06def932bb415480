/** Records of refused signatures one access key may cause per window, and the window. */
const PER_WINDOW = 10;
const WINDOW_MS = 60_000;
/** Access keys tracked at once; beyond, the oldest windows are dropped (they would allow 10 more records). */
const MAX_TRACKED = 10_000;

/**
 * How many refused signatures by one access key id are audited: anyone who has seen a key id (it is in
 * client configurations and the audit trail) can send bad signatures under it, and each record would be
 * written in its principal's name to every sink. The first PER_WINDOW per minute are recorded; the rest
 * are counted in the metrics only, and the next record says how many were left out.
 */
export class RefusalBudget {
  private readonly windows = new Map<string, { start: number; used: number; skipped: number }>();

  /** Whether to record this refusal, and how many were left out before it in this key's windows. */
  take(accessKeyId: string, now: number): { record: boolean; skipped: number } {
    let window = this.windows.get(accessKeyId);
    if (!window || now - window.start >= WINDOW_MS) {
      const skipped = window?.skipped ?? 0;
      this.windows.delete(accessKeyId);
      if (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value!);
      window = { start: now, used: 0, skipped };
      this.windows.set(accessKeyId, window);
    }
    if (window.used >= PER_WINDOW) {
      window.skipped++;
      return { record: false, skipped: 0 };
    }
    window.used++;
    const skipped = window.skipped;
    window.skipped = 0;
    return { record: true, skipped };
  }
}
