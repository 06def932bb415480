/**
 * What a port implementation may add to take part in the kernel's lifecycle. `start` acquires
 * resources (connections, files, timers); `stop` releases them and may be called more than once;
 * `probe` is a cheap live check that /readyz reuses and must not change state.
 */
export interface Lifecycle {
  start?(): Promise<void>;
  stop?(): Promise<void>;
  probe?(): Promise<void>;
}
