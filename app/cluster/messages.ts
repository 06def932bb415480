import type { ReadinessChecks } from '../../kernel/http/readiness.ts';

/** The variable the primary sets on each worker it forks: the worker's slot, 1 to server.workers. */
export { WORKER_SLOT_ENV } from '../../config/workers.ts';

/**
 * Messages between the primary and its workers on the cluster's IPC channel (tagged `svc`, so prom-client's own pass
 * by).
 */
export type WorkerMessage =
  | { svc: 'serving'; protocol: 'http' | 'https'; host: string; port: number }
  | { svc: 'node-metrics'; id: number }
  | { svc: 'node-readiness'; id: number }
  | { svc: 'probe-answer'; id: number; checks: ReadinessChecks };

export type PrimaryMessage =
  | { svc: 'node-metrics-answer'; id: number; text?: string; error?: string }
  | { svc: 'node-readiness-answer'; id: number; checks: ReadinessChecks }
  | { svc: 'probe'; id: number };

export const isSvcMessage = (m: unknown): m is { svc: string } =>
  typeof m === 'object' && m !== null && typeof (m as { svc?: unknown }).svc === 'string';

/** The name a worker goes by in logs and readiness checks. */
export const workerName = (slot: number) => `w${slot}`;
