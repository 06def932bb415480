import { Worker } from 'node:worker_threads';

/**
 * Starts a worker on a module that may be TypeScript: a worker does not inherit the `--import tsx`
 * loader of the main thread (Node 20 runs module hooks per thread), so a small CommonJS bootstrap
 * registers tsx's loader in the worker first, then imports the module.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
(workerData.tsx ? import(workerData.tsx).then((tsx) => tsx.register()) : Promise.resolve()).then(() => import(workerData.entry));
`;

/**
 * A worker thread running `entry` (a .ts module from source, .js in the built server), with `data` as its
 * workerData (plus the `entry` and `tsx` fields the bootstrap reads).
 */
export function startModuleWorker(entry: URL, data: Record<string, unknown>): Worker {
  const tsx = entry.pathname.endsWith('.ts') ? import.meta.resolve('tsx/esm/api') : undefined;
  return new Worker(BOOTSTRAP, { eval: true, workerData: { ...data, entry: entry.href, tsx } });
}

/** `name` beside the calling module, with the calling module's own extension (.ts from source, .js built). */
export function siblingModule(callerUrl: string, name: string): URL {
  return new URL(`./${name}${new URL(callerUrl).pathname.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl);
}

/**
 * Asks a running worker to end with `message` and waits until it has; one still running after `graceMs` is
 * terminated. The caller knows the worker has not exited yet (it forgets one on its 'exit').
 */
export async function closeWorker(worker: Worker, message: unknown, graceMs = 5_000): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.postMessage(message);
  const timer = setTimeout(() => void worker.terminate(), graceMs);
  await exited;
  clearTimeout(timer);
}
