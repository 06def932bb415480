import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

/** CPU seconds (user + system) of one process so far; throws when it has ended. */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** The pids pgrep finds for `args` (none is an empty list). */
export function pgrep(args: string[]): number[] {
  try {
    return execFileSync('pgrep', args, { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** CPU seconds of the processes together, skipping any that ended meanwhile. */
export function cpuSecondsOfAll(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += cpuSecondsOf(pid);
    } catch {
      // ended
    }
  }
  return total;
}

/** CPU seconds of a process and every process it started, down the tree (a primary and its workers). */
export function treeCpuSeconds(root: number): number {
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    total += cpuSecondsOfAll([pid]);
    stack.push(...pgrep(['-P', String(pid)]));
  }
  return total;
}
