import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { whenListening } from './lib/listening.ts';

/**
 * `npm run bench:scale`: encrypt 1 KiB throughput of one node with 1, 2, ... N workers (server.workers;
 * N = BENCH_SCALE_MAX_WORKERS, default the usable cores), journal and audit on a private PostgreSQL
 * (fsync off: the bench measures the node's CPU, not the disk's flushes), then on SQLite in WAL mode, where
 * every audit group commit waits for an fsync (BENCH_SCALE_STORE=postgresql or sqlite runs one). Each row
 * quotes the server's CPU per request, which a second worker must not raise by more than 15% even on a
 * machine with too few cores to show the throughput grow. The load generator (autocannon, this process, one thread)
 * runs on the same machine and
 * its own CPU is measured beside the server's (the primary and every worker), so the table says when the
 * generator, not the node, is the limit. Writes docs/benchmarks-scale.md.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const CORES = availableParallelism();
const MAX_WORKERS = Number(process.env.BENCH_SCALE_MAX_WORKERS ?? CORES);
const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux
type Store = 'postgresql' | 'sqlite' | 'control';
// The control (bare Koa under node:cluster, bare-koa-cluster.ts) always runs: it is what the stores' rows are read against.
const STORES: Store[] = [
  ...(process.env.BENCH_SCALE_STORE ?? 'postgresql,sqlite')
    .split(',')
    .filter((s): s is Store => s === 'postgresql' || s === 'sqlite'),
  'control',
];
const PLAINTEXT = { plaintextBase64: Buffer.alloc(1024, 7).toString('base64') };

/** CPU seconds (user + system) of a process and every process it started (the primary and its workers). */
function treeCpuSeconds(pid: number): number {
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
      stack.push(
        ...execFileSync('pgrep', ['-P', String(p)], { encoding: 'utf8' })
          .split('\n')
          .filter(Boolean)
          .map(Number),
      );
    } catch {
      // gone, or pgrep found no children
    }
  }
  return total;
}

const pgWork = mkdtempSync(path.join(tmpdir(), 'svc-bench-scale-pg-'));
const services = path.join(ROOT, 'scripts/test-services.sh');
let pg: Record<string, string> = {};
if (STORES.includes('postgresql')) {
  execFileSync('bash', [services, 'start-pg', pgWork], { stdio: ['ignore', 'ignore', 'inherit'] });
  pg = Object.fromEntries(
    [...readFileSync(path.join(pgWork, 'env'), 'utf8').matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
  );
}
let run = 0;

/** A fresh, empty store per run: a new database on the private server, or new SQLite files in `dir`. */
function storeEnv(store: Store, dir: string): Record<string, string> {
  if (store === 'sqlite') {
    return {
      SVC_JOURNAL_KIND: 'rdb-embedded',
      SVC_AUDIT_KIND: 'rdb-embedded',
      SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(dir, 'journal.db')}`,
      SVC_AUDIT_EMBEDDED_PATH: path.join(dir, 'audit.db'),
    };
  }
  const name = `scale_${process.pid}_${++run}`;
  execFileSync('psql', [pg.SVC_TEST_PG_ADMIN_URL!, '-qc', `create database ${name} owner ${pg.SVC_TEST_PG_USER}`], {
    stdio: 'ignore',
  });
  return {
    SVC_JOURNAL_KIND: 'rdb-server-1',
    SVC_AUDIT_KIND: 'rdb-server-1',
    SVC_JDBC_URL: pg.SVC_TEST_PG_URL!.replace(/\/[^/]+$/, `/${name}`),
    SVC_JDBC_USERNAME: pg.SVC_TEST_PG_USER!,
    SVC_JDBC_PASSWORD: pg.SVC_TEST_PG_PASSWORD!,
    SVC_CRYPTO_LOCAL_KEK: Buffer.alloc(32, 3).toString('base64'),
  };
}

/** Busy and total CPU ticks of the whole machine so far (/proc/stat), to tell how much of it others used. */
function machineTicks(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const n = fields.map(Number);
  const idle = n[3]! + n[4]!;
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

function startNode(store: Store, workers: number, dir: string): Promise<{ child: ChildProcess; url: string }> {
  if (store === 'control') {
    const child = spawn(
      process.execPath,
      ['--max-semi-space-size=64', '--import', 'tsx', 'bench/bare-koa-cluster.ts'],
      {
        cwd: ROOT,
        env: { ...process.env, BENCH_BARE_WORKERS: String(workers) },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    return whenListening(child, 'bare Koa cluster');
  }
  const env = {
    ...process.env,
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_WORKERS: String(workers),
    SVC_NODE_ID: 'bench',
    SVC_REVOCATION_KIND: 'none',
    SVC_DATA_DIR: dir,
    ...storeEnv(store, dir),
    // One principal at tens of thousands of calls a second: the limiter stays in the chain but never refuses.
    SVC_RATE_LIMIT_RPS: '1000000000',
    SVC_RATE_LIMIT_BURST: '1000000000',
  };
  const child = spawn(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', 'app/main.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return whenListening(child, 'service');
}

async function call(url: string, body?: unknown): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'X-Svc-User': 'bench', 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

interface Row {
  store: Store;
  workers: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  serverCores: number;
  generatorCores: number;
  machineCores: number;
}

async function measure(store: Store, workers: number): Promise<Row> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-scale-'));
  const node = await startNode(store, workers, dir);
  try {
    let url = `${node.url}/echo`;
    if (store !== 'control') {
      const key = await call(`${node.url}/v1/keys`, { spec: { name: `bench-${randomUUID()}`, algorithm: 'AES' } });
      await call(`${node.url}/v1/keys/${key.id}/activate`);
      url = `${node.url}/v1/keys/${key.id}/encrypt`;
    }
    const opts = {
      url,
      method: 'POST' as const,
      connections: CONNECTIONS,
      headers: { 'X-Svc-User': 'bench', 'Content-Type': 'application/json' },
      body: JSON.stringify(PLAINTEXT),
    };
    await autocannon({ ...opts, duration: 3 }); // warm-up: JIT, caches, every worker's connections
    const server0 = treeCpuSeconds(node.child.pid!);
    const gen0 = process.cpuUsage();
    const machine0 = machineTicks();
    const result = await autocannon({ ...opts, duration: SECONDS });
    const gen = process.cpuUsage(gen0);
    const machine1 = machineTicks();
    const serverCores = (treeCpuSeconds(node.child.pid!) - server0) / SECONDS;
    const row = {
      store,
      workers,
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.non2xx + result.errors,
      serverCores,
      generatorCores: (gen.user + gen.system) / 1e6 / SECONDS,
      machineCores: ((machine1.busy - machine0.busy) / (machine1.total - machine0.total)) * CORES,
    };
    process.stderr.write(
      `${store}, ${workers} worker(s): ${row.rps.toFixed(0)} req/s, p99 ${row.p99} ms, server ${row.serverCores.toFixed(2)} cores, generator ${row.generatorCores.toFixed(2)} cores, machine ${row.machineCores.toFixed(2)} cores busy, errors ${row.errors}\n`,
    );
    return row;
  } finally {
    node.child.kill('SIGTERM');
    await new Promise((r) => node.child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

const loadBefore = loadavg()[0]!;
const measured: Row[] = [];
// 1, 2, ... N workers, then N ... 1: the machine's drift during a store's runs moves every worker count alike.
const counts = Array.from({ length: Math.max(1, MAX_WORKERS) }, (_, i) => i + 1);
try {
  for (const store of STORES)
    for (const workers of [...counts, ...[...counts].reverse()]) measured.push(await measure(store, workers));
} finally {
  if (STORES.includes('postgresql'))
    execFileSync('bash', [services, 'stop', pgWork], { stdio: ['ignore', 'ignore', 'inherit'] });
  rmSync(pgWork, { recursive: true, force: true });
}
const loadAfter = loadavg()[0]!;
const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const rows: Row[] = STORES.flatMap((store) =>
  counts.map((workers) => {
    const runs = measured.filter((r) => r.store === store && r.workers === workers);
    return {
      store,
      workers,
      rps: meanOf(runs.map((r) => r.rps)),
      p50: meanOf(runs.map((r) => r.p50)),
      p99: meanOf(runs.map((r) => r.p99)),
      errors: runs.reduce((a, r) => a + r.errors, 0),
      serverCores: meanOf(runs.map((r) => r.serverCores)),
      generatorCores: meanOf(runs.map((r) => r.generatorCores)),
      machineCores: meanOf(runs.map((r) => r.machineCores)),
    };
  }),
);
const one = (r: Row) => rows.find((x) => x.store === r.store && x.workers === 1)!;
/** Server CPU (primary and workers) per request answered, in microseconds. */
const cpuPerRequest = (r: Row) => (r.serverCores / r.rps) * 1e6;
const limit = (r: Row): string => {
  const ours = r.serverCores + r.generatorCores;
  const others = Math.max(0, r.machineCores - ours);
  if (r.generatorCores >= 0.9) return 'the generator (one thread, a whole core)';
  if (r.machineCores >= CORES * 0.9)
    return others >= 0.25
      ? `the machine: all ${CORES} cores busy, ${others.toFixed(1)} of them with other processes`
      : `the machine: server and generator use ${ours.toFixed(1)} of ${CORES} cores`;
  return 'the node';
};
/**
 * The control's rows are bare Koa under node:cluster: what N processes on these cores pay per request with none of the
 * service's code. A store's own part of the cost of more workers is its ratio over the control's.
 */
function controlReading(): string[] {
  const top = Math.max(1, MAX_WORKERS);
  const ratio = (store: Store) => {
    const [a, b] = [
      rows.find((r) => r.store === store && r.workers === 1),
      rows.find((r) => r.store === store && r.workers === top),
    ];
    return a && b ? cpuPerRequest(b) / cpuPerRequest(a) : undefined;
  };
  const control = ratio('control');
  if (top < 2 || control === undefined) return [];
  return [
    `The control (bare Koa under node:cluster, the same ${CONNECTIONS} connections) pays ${control.toFixed(2)}x its one-process CPU per request with ${top} processes:`,
    'processes that share these cores with each other and the generator are dearer per request with none of the',
    `service's code in them. The stores' own part, their ${top}-worker ratio over the control's: ` +
      STORES.filter((s) => s !== 'control')
        .map((s) => `${s} ${((ratio(s) ?? Number.NaN) / control).toFixed(2)}x`)
        .join(', ') +
      '.',
    '',
  ];
}

const doc = [
  '# Benchmarks: one node, every core (server.workers)',
  '',
  '<!-- Written by `npm run bench:scale`. -->',
  '',
  'Each worker count runs twice, in the order 1, 2, ... N, N ... 1, and its row is the mean of the two.',
  '',
  `Run on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${CORES} usable cores; load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`,
  `(others' work on the machine counts against both server and generator). Encrypt 1 KiB with one AES key, autocannon ${CONNECTIONS}`,
  `connections for ${SECONDS} s after a 3 s warm-up, journal and audit on a private PostgreSQL (fsync off) or on SQLite (WAL, synchronous FULL)`,
  'shared by the workers; server CPU per request is the goal that a ' +
    '2-core machine can show (a second worker must not raise it by more ' +
    'than 15%). The generator runs in the',
  'bench process on the same machine, unpinned; "cores" are CPU seconds ' +
    'per second of the server (primary and workers), of',
  "the generator, and of the whole machine (/proc/stat: everyone's, so other processes show as the difference).",
  '',
  '| store | workers | req/s | vs 1 worker | added per worker (x one ' +
    'worker) | server CPU µs a request | vs 1 worker | p50 ms | p99 ms | ' +
    'errors | server cores | generator cores | machine cores busy | limit |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.store} | ${r.workers} | ${r.rps.toFixed(0)} | ${(r.rps / one(r).rps).toFixed(2)} | ${r.workers === 1 ? '' : ((r.rps - one(r).rps) / (r.workers - 1) / one(r).rps).toFixed(2)} | ${cpuPerRequest(r).toFixed(0)} | ${(cpuPerRequest(r) / cpuPerRequest(one(r))).toFixed(2)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.serverCores.toFixed(2)} | ${r.generatorCores.toFixed(2)} | ${r.machineCores.toFixed(2)} | ${limit(r)} |`,
  ),
  '',
  ...controlReading(),
  'Reading the table: a worker is one Node process with its own event loop, so while the node is the limit each added',
  "worker should add close to one worker's throughput (the goal is at least 0.8 of it per added core). Where the",
  '"limit" column names the generator or the machine, the row measures those instead: on a machine with as many cores',
  'as workers, the generator takes a core the workers need. Run the ' +
    'generator on another machine (or on more cores than',
  'the node uses) to measure the node alone.',
  '',
  ...(rows.some((r) => r.machineCores - r.serverCores - r.generatorCores >= 0.25)
    ? [
        '**This run measured a shared machine, not the node**: other processes ' +
          'kept the cores busy (the "machine cores busy"',
        'column against server plus generator), so the server got a fraction of ' +
          'a core whatever its worker count, and the',
        'rows say nothing about how the node scales. Re-run it on a quiet machine with more cores than workers.',
        '',
      ]
    : []),
  ...(CORES <= 2
    ? [
        `With ${CORES} cores, the generator and the node share them: the last row's workers have fewer cores than workers once the generator runs, so it cannot show the per-core growth; the rows with fewer workers than cores can.`,
        '',
      ]
    : []),
].join('\n');
writeFileSync(path.join(ROOT, 'docs/benchmarks-scale.md'), doc);
process.stderr.write(doc);
