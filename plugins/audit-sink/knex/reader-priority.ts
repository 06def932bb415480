import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * The background reader thread's nice value (verification, advisor windows). On a contended core the
 * scheduler then gives the request path's thread about nine tenths of it and that reader one tenth: under
 * full load a verification takes longer, the callers around it do not. Nothing changes on an idle core.
 * Pages callers wait on (GET /v1/audit) have a reader of their own at normal priority: starved like this,
 * a steady stream of them would queue up behind each other.
 */
export const READER_NICENESS = 10;

/**
 * Lowers the calling thread's CPU priority, never raises it. On Linux a thread is a task with a nice value
 * of its own, named by /proc/thread-self; elsewhere, or if the system refuses, the thread keeps the
 * process's priority (answers false) and the reader still works, only without yielding the core.
 */
export function lowerThisThreadsPriority(niceness = READER_NICENESS): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    if (getPriority(tid) < niceness) setPriority(tid, niceness);
    return true;
  } catch {
    return false;
  }
}
