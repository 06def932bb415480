import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { whenListening } from './listening.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const CONNECTIONS = 50;

export interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Requests answered per second of the server process's CPU time (user + system), when its pid was given. */
  perCpuSecond: number;
  /** The same per second of its main thread's CPU time alone: the request loop, without worker threads. */
  perLoopCpuSecond?: number;
}

const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

/**
 * CPU seconds (user + system) a process has used so far, from /proc/PID/stat; with `thread`, that thread's alone (its
 * main thread's id is the pid).
 */
export function cpuSeconds(pid: number, thread?: number): number {
  const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * On a machine with taskset and two or more cores, servers run on core 0 and this process (autocannon)
 * on core 1, so the load generator does not steal the server's core and per-CPU numbers are stable.
 * BENCH_PIN=0 shares the cores instead (how the numbers before 0.2 were taken).
 */
export const PINNED = ((): boolean => {
  if (process.env.BENCH_PIN === '0') return false;
  try {
    execFileSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * Every bench load comes from one principal at tens of thousands of calls a second: the rate limiter stays
 * on (it is part of the full chain) with limits no load here reaches, so every call is served and pays
 * for the limiter's check. `env` may override them (bench/rate-limit.ts turns the limiter off).
 */
const UNREACHED_LIMITS = { SVC_RATE_LIMIT_RPS: '1000000000', SVC_RATE_LIMIT_BURST: '1000000000' };

/**
 * Starts a Node process (the service or the bare endpoint) and resolves when it logs that it listens;
 * `cwd` runs another checkout of the service (bench:compare's other version).
 */
export function start(
  args: string[],
  env: Record<string, string>,
  stdoutFile?: string,
  cwd = ROOT,
): Promise<{ child: ChildProcess; url: string; logged: string }> {
  // BENCH_SERVICE_STDOUT and BENCH_SERVICE_NODE_ARGS are for finding where a server's time goes: for
  // example BENCH_SERVICE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof --trace-gc' with its stdout in a file.
  const out = stdoutFile ?? process.env.BENCH_SERVICE_STDOUT;
  const stdout = out ? openSync(out, 'a') : 'ignore';
  const debugArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const node = [process.execPath, '--max-semi-space-size=64', ...debugArgs, '--import', 'tsx', ...args];
  const [cmd, ...argv] = PINNED ? ['taskset', '-c', '0', ...node] : node;
  const child = spawn(cmd!, argv, {
    cwd,
    env: { ...process.env, ...UNREACHED_LIMITS, ...env },
    stdio: ['ignore', stdout, 'pipe'],
  });
  return whenListening(child, args.join(' '));
}

export async function call(url: string, method: string, body?: unknown): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { 'X-Svc-User': 'bench', 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Creates and activates a key on a running service (under a name of its own: names are unique). */
export async function activeKey(base: string, spec: object): Promise<string> {
  const k = await call(`${base}/v1/keys`, 'POST', { spec: { name: `bench-${randomUUID()}`, ...spec } });
  await call(`${base}/v1/keys/${k.id}/activate`, 'POST');
  return k.id;
}

/** What a load may add: headers of its protocol, and a check of every answer (a failing one counts as an error). */
export interface LoadExtras {
  headers?: Record<string, string>;
  verifyBody?: (body: string) => boolean;
}

/** Loads one endpoint; with the server's pid, also measures the server's CPU time during the load. */
export async function load(
  name: string,
  url: string,
  body: unknown,
  seconds = SECONDS,
  pid?: number,
  extras: LoadExtras = {},
): Promise<Row> {
  const cpuBefore = pid ? cpuSeconds(pid) : 0;
  const loopBefore = pid ? cpuSeconds(pid, pid) : 0;
  const result = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: seconds,
    headers: { 'X-Svc-User': 'bench', 'Content-Type': 'application/json', ...extras.headers },
    body: JSON.stringify(body),
    ...(extras.verifyBody ? { verifyBody: (b: unknown) => extras.verifyBody!(String(b)) } : {}),
  });
  const cpu = pid ? cpuSeconds(pid) - cpuBefore : 0;
  const loop = pid ? cpuSeconds(pid, pid) - loopBefore : 0;
  const errors = result.non2xx + result.errors + (result.mismatches ?? 0);
  const perSecondOf = (seconds: number) => (seconds > 0 ? result.requests.total / seconds : 0);
  const row = {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors,
    perCpuSecond: perSecondOf(cpu),
    perLoopCpuSecond: perSecondOf(loop),
  };
  process.stderr.write(
    `${name.padEnd(40)} ${row.rps.toFixed(0).padStart(7)} req/s  ${row.perCpuSecond.toFixed(0).padStart(6)} req/CPU-s  p50 ${row.p50} ms  p99 ${row.p99} ms  errors ${row.errors}\n`,
  );
  return row;
}

/** One side of an A/B comparison: a label, the URL to load and the server's pid (for CPU time). */
export interface Side {
  label: string;
  url: string;
  pid?: number;
}

export type Measured = Pick<Row, 'rps' | 'perCpuSecond'> & { perLoopCpuSecond: number };

/**
 * ABBA order (A, B, B, A): a machine that speeds up or slows down during the round moves both sides
 * alike, instead of always favouring whichever runs first. Returns each side's mean req/s and req per
 * CPU second.
 */
export async function abba(what: string, a: Side, b: Side, body: unknown): Promise<{ a: Measured; b: Measured }> {
  const a1 = await load(`${what}, ${a.label}`, a.url, body, SECONDS, a.pid);
  const b1 = await load(`${what}, ${b.label}`, b.url, body, SECONDS, b.pid);
  const b2 = await load(`${what}, ${b.label}`, b.url, body, SECONDS, b.pid);
  const a2 = await load(`${what}, ${a.label}`, a.url, body, SECONDS, a.pid);
  const mean = (x: Row, y: Row) => ({
    rps: (x.rps + y.rps) / 2,
    perCpuSecond: (x.perCpuSecond + y.perCpuSecond) / 2,
    perLoopCpuSecond: ((x.perLoopCpuSecond ?? 0) + (y.perLoopCpuSecond ?? 0)) / 2,
  });
  return { a: mean(a1, a2), b: mean(b1, b2) };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const machine = () => `${new Date().toISOString().slice(0, 10)}, Node ${process.version}`;
