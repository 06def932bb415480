/**
 * What a port implementation may add to take part in the kernel's lifecycle. `start` acquires
 * resources (connections, files, timers); `stop` releases them and may be called more than once;
 * `probe` is a cheap live check that /readyz reuses and must not change state. `readiness` adds named
 * checks of the plugin's own to /readyz (background work pending, say), read from memory: `state` is a
 * fixed word anyone may read, `detail` goes to the log and to authenticated Humans only.
 */
export interface Lifecycle {
  start?(): Promise<void>;
  stop?(): Promise<void>;
  probe?(): Promise<void>;
  readiness?(): Record<string, { ok: boolean; state?: string; detail?: string }>;
}
