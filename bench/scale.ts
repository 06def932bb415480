import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { whenListening } from './lib/listening.ts';
import { type ScaleRow, scaleDoc } from './lib/scale-doc.ts';
import { startPrivatePostgres, stopPrivatePostgres } from './lib/private-postgres.ts';
import { treeCpuSeconds } from './lib/process-cpu.ts';
import { postgresStoreEnv, sqliteStoreEnv } from './lib/store-env.ts';

/**
 * `npm run bench:scale`: encrypt 1 KiB throughput of one node with 1, 2, ... N workers (server.workers;
 * N = BENCH_SCALE_MAX_WORKERS, default the usable cores), journal and audit on a private PostgreSQL
 * (fsync off: the bench measures the node's CPU, not the disk's flushes), then on SQLite in WAL mode, where
 * every audit group commit waits for an fsync (BENCH_SCALE_STORE=postgresql or sqlite runs one). Each row
 * quotes the server's CPU per request, which a second worker must not raise by more than 15% even on a
 * machine with too few cores to show the throughput grow. The load generator (autocannon, this process, one thread)
 * runs on the same machine and
 * its own CPU is measured beside the server's (the primary and every worker), so the table says when the
 * generator, not the node, is the limit. N separate one-worker nodes (own files or database, no cluster) run beside the
 * N-worker node: what N processes of the service pay with nothing shared, against which the workers' sharing is read.
 * Writes docs/benchmarks-scale.md.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/**
 * V8 grows a process's young generation by the bytes that survive its scavenges, so a process carrying half the load
 * takes about twice as long to reach its full size (here some 11 s for each of two workers, 4 s for one), and until
 * then it collects the young generation more often and promotes more to the old one. After a 3 s warm-up two SQLite
 * workers paid 1.34x one worker's CPU per request, after 20 s 1.21x (docs/benchmarks.md).
 */
const WARMUP_SECONDS = Number(process.env.BENCH_SCALE_WARMUP_SECONDS ?? 20);
const CORES = availableParallelism();
const MAX_WORKERS = Number(process.env.BENCH_SCALE_MAX_WORKERS ?? CORES);
type Store = 'postgresql' | 'sqlite' | 'control';
// The control (bare Koa under node:cluster, bare-koa-cluster.ts) always runs: it is what the stores' rows are read against.
const STORES: Store[] = [
  ...(process.env.BENCH_SCALE_STORE ?? 'postgresql,sqlite')
    .split(',')
    .filter((s): s is Store => s === 'postgresql' || s === 'sqlite'),
  'control',
];
const PLAINTEXT = { plaintextBase64: Buffer.alloc(1024, 7).toString('base64') };

const pgWork = mkdtempSync(path.join(tmpdir(), 'svc-bench-scale-pg-'));
const pg: Record<string, string> = STORES.includes('postgresql') ? startPrivatePostgres(pgWork) : {};
let run = 0;

/** A fresh, empty store per run: a new database on the private server, or new SQLite files in `dir`. */
function storeEnv(store: Store, dir: string): Record<string, string> {
  return store === 'sqlite' ? sqliteStoreEnv(dir) : postgresStoreEnv(pg, `scale_${process.pid}_${++run}`);
}

/** Busy and total CPU ticks of the whole machine so far (/proc/stat), to tell how much of it others used. */
function machineTicks(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const n = fields.map(Number);
  const idle = n[3]! + n[4]!;
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

function startNode(
  store: Store,
  workers: number,
  dir: string,
  nodeId: string,
): Promise<{ child: ChildProcess; url: string }> {
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
    SVC_NODE_ID: nodeId,
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

type Row = ScaleRow;

/** Loads `nodes` nodes of `workers` workers each at once, the connections shared out between them. */
async function measure(store: Store, workers: number, nodes = 1): Promise<Row> {
  const dirs = Array.from({ length: nodes }, () => mkdtempSync(path.join(tmpdir(), 'svc-bench-scale-')));
  const started = await Promise.all(dirs.map((dir, i) => startNode(store, workers, dir, `bench-${i + 1}`)));
  try {
    const loads = await Promise.all(
      started.map(async (node) => {
        let url = `${node.url}/echo`;
        if (store !== 'control') {
          const key = await call(`${node.url}/v1/keys`, { spec: { name: `bench-${randomUUID()}`, algorithm: 'AES' } });
          await call(`${node.url}/v1/keys/${key.id}/activate`);
          url = `${node.url}/v1/keys/${key.id}/encrypt`;
        }
        return {
          url,
          method: 'POST' as const,
          connections: CONNECTIONS / nodes,
          headers: { 'X-Svc-User': 'bench', 'Content-Type': 'application/json' },
          body: JSON.stringify(PLAINTEXT),
        };
      }),
    );
    // Warm-up: JIT, caches, every worker's connections and its young generation at full size (WARMUP_SECONDS).
    await Promise.all(loads.map((opts) => autocannon({ ...opts, duration: WARMUP_SECONDS })));
    const serverCpu = () => started.reduce((sum, node) => sum + treeCpuSeconds(node.child.pid!), 0);
    const server0 = serverCpu();
    const gen0 = process.cpuUsage();
    const machine0 = machineTicks();
    const results = await Promise.all(loads.map((opts) => autocannon({ ...opts, duration: SECONDS })));
    const gen = process.cpuUsage(gen0);
    const machine1 = machineTicks();
    const serverCores = (serverCpu() - server0) / SECONDS;
    const row = {
      store,
      workers,
      nodes,
      rps: results.reduce((sum, r) => sum + r.requests.average, 0),
      p50: Math.max(...results.map((r) => r.latency.p50)),
      p99: Math.max(...results.map((r) => r.latency.p99)),
      errors: results.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
      serverCores,
      generatorCores: (gen.user + gen.system) / 1e6 / SECONDS,
      machineCores: ((machine1.busy - machine0.busy) / (machine1.total - machine0.total)) * CORES,
    };
    process.stderr.write(
      `${store}, ${nodes > 1 ? `${nodes} nodes of ` : ''}${workers} worker(s): ${row.rps.toFixed(0)} req/s, p99 ${row.p99} ms, server ${row.serverCores.toFixed(2)} cores, generator ${row.generatorCores.toFixed(2)} cores, machine ${row.machineCores.toFixed(2)} cores busy, errors ${row.errors}\n`,
    );
    return row;
  } finally {
    for (const node of started) node.child.kill('SIGTERM');
    await Promise.all(started.map((node) => new Promise((r) => node.child.once('exit', r))));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

const loadBefore = loadavg()[0]!;
const measured: Row[] = [];
// 1, 2, ... N workers, N separate nodes twice, then N ... 1 workers: the machine's drift during a store's runs moves
// every configuration alike. The control has no separate-nodes runs: its processes share nothing anyway.
const counts = Array.from({ length: Math.max(1, MAX_WORKERS) }, (_, i) => i + 1);
const plan = (store: Store): Array<[number, number]> => {
  const up = counts.map((w): [number, number] => [w, 1]);
  const separate: Array<[number, number]> = store !== 'control' && MAX_WORKERS > 1 ? [[1, MAX_WORKERS]] : [];
  return [...up, ...separate, ...separate, ...[...up].reverse()];
};
try {
  for (const store of STORES)
    for (const [workers, nodes] of plan(store)) measured.push(await measure(store, workers, nodes));
} finally {
  if (STORES.includes('postgresql')) stopPrivatePostgres(pgWork);
  rmSync(pgWork, { recursive: true, force: true });
}
const loadAfter = loadavg()[0]!;
const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const rows: Row[] = STORES.flatMap((store) =>
  [...new Map(plan(store).map(([w, n]) => [`${w}x${n}`, [w, n] as const])).values()].map(([workers, nodes]) => {
    const runs = measured.filter((r) => r.store === store && r.workers === workers && r.nodes === nodes);
    return {
      store,
      workers,
      nodes,
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
const doc = scaleDoc({
  rows,
  cores: CORES,
  maxWorkers: MAX_WORKERS,
  connections: CONNECTIONS,
  seconds: SECONDS,
  warmupSeconds: WARMUP_SECONDS,
  loadBefore,
  loadAfter,
});
writeFileSync(path.join(ROOT, 'docs/benchmarks-scale.md'), doc);
process.stderr.write(doc);
