import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { openLoop } from '../test/helpers/open-loop.ts';
import { whenListening } from './lib/listening.ts';
import { startPrivatePostgres, stopPrivatePostgres } from './lib/private-postgres.ts';
import { cpuSecondsOfAll, pgrep, treeCpuSeconds } from './lib/process-cpu.ts';
import { postgresStoreEnv, sqliteStoreEnv } from './lib/store-env.ts';

/**
 * `npm run bench:workers-fixed-rate`: what a second worker costs each request when the machine is not
 * saturated. For PostgreSQL, SQLite and the control (bare Koa under node:cluster, BENCH_BARE_SPIN_US of CPU a
 * request), one node with 1 and with 2 workers (in the order 1, 2, 2, 1) takes encrypt 1 KiB on a schedule at
 * BENCH_FIXED_RATE requests a second (default 3,000) for BENCH_SECONDS (15), after a 20 s closed-loop warm-up:
 * the same offered load either way, so the rows differ only in how many processes share it. Reads the CPU time
 * of the node's processes, of PostgreSQL's and of this process (the generator) per request, and PostgreSQL's
 * committed transactions per request. Nothing is pinned: two workers need both cores.
 * Writes docs/benchmarks-workers-fixed-rate.md.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const RATE = Number(process.env.BENCH_FIXED_RATE ?? 3000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const SPIN_US = process.env.BENCH_BARE_SPIN_US ?? '150';
const STORES = (process.env.BENCH_FIXED_RATE_STORES ?? 'postgresql,sqlite,control').split(',');
const ORDER = [1, 2, 2, 1];
const PLAINTEXT = JSON.stringify({ plaintextBase64: Buffer.alloc(1024, 7).toString('base64') });
const HEADERS = { 'x-svc-user': 'bench', 'content-type': 'application/json' };

const pgWork = mkdtempSync(path.join(tmpdir(), 'svc-bench-fixed-rate-pg-'));
const pg: Record<string, string> = STORES.includes('postgresql') ? startPrivatePostgres(pgWork) : {};
const psql = (sql: string) => execFileSync('psql', [pg.SVC_TEST_PG_ADMIN_URL!, '-Atqc', sql], { encoding: 'utf8' });

/** The store's settings for a fresh node: a new database, or new SQLite files in `dir`; none for the control. */
function storeEnv(store: string, dir: string, database: string): Record<string, string> {
  if (store === 'control') return { BENCH_BARE_SPIN_US: SPIN_US };
  return store === 'sqlite' ? sqliteStoreEnv(dir) : postgresStoreEnv(pg, database);
}

interface Row {
  store: string;
  workers: number;
  nodeUs: number;
  databaseUs: number;
  transactions: number;
  generatorUs: number;
  p50: number;
  p99: number;
  errors: number;
}

async function measure(store: string, workers: number, run: number): Promise<Row> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-fixed-rate-'));
  const database = `fixed_rate_${process.pid}_${run}`;
  const bare = store === 'control';
  const child = spawn(
    process.execPath,
    ['--max-semi-space-size=64', '--import', 'tsx', bare ? 'bench/bare-koa-cluster.ts' : 'app/main.ts'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        SVC_HTTP_HOST: '127.0.0.1',
        SVC_HTTP_PORT: '0',
        SVC_WORKERS: String(workers),
        BENCH_BARE_WORKERS: String(workers),
        SVC_NODE_ID: 'bench-1',
        SVC_REVOCATION_KIND: 'none',
        SVC_DATA_DIR: dir,
        SVC_RATE_LIMIT_RPS: '1000000000',
        SVC_RATE_LIMIT_BURST: '1000000000',
        ...storeEnv(store, dir, database),
      },
    },
  );
  const node = await whenListening(child, store);
  const pool = new Pool(node.url, { connections: 64, pipelining: 1, keepAliveTimeout: 120_000 });
  try {
    let urlPath = '/echo';
    if (!bare) {
      const created = await fetch(`${node.url}/v1/keys`, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({ spec: { name: `bench-${randomUUID()}`, algorithm: 'AES' } }),
      });
      const { id } = (await created.json()) as { id: string };
      await fetch(`${node.url}/v1/keys/${id}/activate`, { method: 'POST', headers: HEADERS });
      urlPath = `/v1/keys/${id}/encrypt`;
    }
    // Warm-up: JIT, every worker's connections and young generation at full size.
    await autocannon({
      url: `${node.url}${urlPath}`,
      method: 'POST',
      connections: 50,
      duration: 20,
      headers: HEADERS,
      body: PLAINTEXT,
    });
    const send = async () => {
      const res = await pool.request({ path: urlPath, method: 'POST', headers: HEADERS, body: PLAINTEXT });
      await res.body.text();
      return res.statusCode;
    };
    await openLoop(RATE * 3, RATE, send, () => {});
    const transactions = () =>
      store === 'postgresql'
        ? Number(psql(`select xact_commit from pg_stat_database where datname = '${database}'`))
        : 0;
    const databaseCpu = () => (store === 'postgresql' ? cpuSecondsOfAll(pgrep(['-x', 'postgres'])) : 0);
    const node0 = treeCpuSeconds(child.pid!);
    const database0 = databaseCpu();
    const transactions0 = transactions();
    const generator0 = process.cpuUsage();
    const latencies: number[] = [];
    let errors = 0;
    await openLoop(RATE * SECONDS, RATE, send, (status, due) => {
      latencies.push(performance.now() - due);
      if (status !== 200) errors++;
    });
    const n = latencies.length;
    const generator = process.cpuUsage(generator0);
    latencies.sort((a, b) => a - b);
    const row = {
      store,
      workers,
      nodeUs: ((treeCpuSeconds(child.pid!) - node0) * 1e6) / n,
      databaseUs: ((databaseCpu() - database0) * 1e6) / n,
      transactions: (transactions() - transactions0) / n,
      generatorUs: (generator.user + generator.system) / n,
      p50: latencies[Math.floor(n / 2)]!,
      p99: latencies[Math.floor(n * 0.99)]!,
      errors,
    };
    process.stderr.write(`${JSON.stringify(row)}\n`);
    return row;
  } finally {
    await pool.close();
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const rows: Row[] = [];
let run = 0;
try {
  for (const store of STORES) for (const workers of ORDER) rows.push(await measure(store, workers, ++run));
} finally {
  if (STORES.includes('postgresql')) stopPrivatePostgres(pgWork);
}

const f = (x: number, digits = 0) => x.toFixed(digits);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const lines = STORES.flatMap((store) => {
  const of = (workers: number) => rows.filter((r) => r.store === store && r.workers === workers);
  const one = mean(of(1).map((r) => r.nodeUs));
  return rows
    .filter((r) => r.store === store)
    .map(
      (r) =>
        `| ${store === 'control' ? `control: bare Koa + ${SPIN_US} µs CPU a request` : store} | ${r.workers} | ${f(r.nodeUs)} (${f(r.nodeUs / one, 2)}x) | ${store === 'postgresql' ? `${f(r.databaseUs)} | ${f(r.transactions, 2)}` : '- | -'} | ${f(r.generatorUs)} | ${f(r.p50, 1)} | ${f(r.p99, 1)} | ${r.errors} |`,
    );
});
const doc = [
  '# Benchmarks: a second worker at a fixed rate',
  '',
  '<!-- Written by `npm run bench:workers-fixed-rate`; numbers from the run described below. -->',
  '',
  `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${availableParallelism()} cores, nothing pinned. One node with 1 and with 2 workers, in`,
  `the order 1, 2, 2, 1, takes encrypt 1 KiB on a schedule at ${RATE} requests a second for ${SECONDS} s (after a 20 s closed-loop`,
  'warm-up), the same offered load either way, well below what the machine sustains: what changes between the rows',
  'is only how many processes share the load. CPU is per request answered; "x" is over the mean of the node\'s two',
  'one-worker rows. The control is bare Koa under node:cluster spending a fixed CPU time per request: what a second',
  'process costs in Node and on this machine, with none of the service.',
  '',
  '| store | workers | node CPU µs a request | PostgreSQL CPU µs a request | PostgreSQL transactions a request | generator CPU µs a request | p50 ms | p99 ms | errors |',
  '|---|---|---|---|---|---|---|---|---|',
  ...lines,
  '',
].join('\n');
writeFileSync(path.join(ROOT, 'docs/benchmarks-workers-fixed-rate.md'), doc);
process.stdout.write(doc);
