import type { ReadinessChecks } from './readiness.ts';

/**
 * When the process is one of several workers serving one listener (server.workers above 1), a request
 * for /metrics or /readyz reaches one worker, but its answer must describe the whole node. The process
 * that runs the workers supplies this; the kernel only asks it.
 */
export interface NodeWorkers {
  /** The whole node's metrics (every worker's, summed where they add up), Prometheus text format. */
  metrics(): Promise<string>;
  /** Every worker's readiness checks, each named after its worker (`w2:journal`), and one per worker slot. */
  readiness(): Promise<ReadinessChecks>;
  /** The kernel hands over its own probe at boot, for the other workers' /readyz to ask. */
  answerProbesWith(local: () => Promise<ReadinessChecks>): void;
}
