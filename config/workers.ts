import { availableParallelism } from 'node:os';

/**
 * `server.workers`: a whole number of at least 1, or `auto` for the cores this process may use
 * (os.availableParallelism, which honours CPU affinity and, on Linux, the cgroup's CPU quota).
 */
export function wholeNumberOrAuto(value: unknown): void {
  if (workerCountOf(value) === undefined) throw new Error('must be a whole number of at least 1, or auto');
}

/** The number of workers `server.workers` asks for; undefined when the value is neither a count nor `auto`. */
export function workerCountOf(value: unknown): number | undefined {
  const text = String(value).trim();
  if (text === 'auto') return availableParallelism();
  if (!/^[0-9]{1,4}$/.test(text)) return undefined;
  const count = Number(text);
  return count >= 1 ? count : undefined;
}

/** How many worker processes this configuration runs (1: no cluster, the process serves by itself). */
export function configuredWorkers(all: { server: { workers: unknown } }): number {
  return workerCountOf(all.server.workers) ?? 1;
}

/**
 * The node id of worker `slot` (1-based): `<node id>-w<slot>`. Each worker is a node of its own (its own
 * audit hash chain, its own row in the node registry); the slot, not the process, names it, so a worker
 * that replaces a dead one continues that worker's chain instead of starting a new node.
 */
export function workerNodeId(nodeId: string, slot: number): string {
  return `${nodeId}-w${slot}`;
}

/** Set by a node's primary in each worker's environment: the worker's slot (app/cluster). */
export const WORKER_SLOT_ENV = 'SVC_KMS_WORKER_SLOT';
