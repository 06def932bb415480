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
 * saturated. For PostgreSQL, SQLite and the control (bare Koa under node:cluster doing a fixed amount of work a
 * request, BENCH_BARE_WORK_ROUNDS), one node takes encrypt 1 KiB on a schedule at BENCH_FIXED_RATE requests a
 * second (default 3,000) for BENCH_SECONDS (15), after a 20 s closed-loop warm-up, with 1 and with 2 workers (in
 * the order 1, 2, 1 at half the rate, 2, 1): the same offered load either way, so those rows differ only in how
 * many processes share it; the half-rate row is what each of two workers sees, in one process. Reads the CPU time
 * of the node's processes, of PostgreSQL's and of this process (the generator) per request, and PostgreSQL's
 * committed transactions per request. Nothing is pinned: two workers need both cores.
 * Writes docs/benchmarks-workers-fixed-rate.md.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const RATE = Number(process.env.BENCH_FIXED_RATE ?? 3000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WORK_ROUNDS = process.env.BENCH_BARE_WORK_ROUNDS ?? '20';
const STORES = (process.env.BENCH_FIXED_RATE_STORES ?? 'postgresql,postgresql-notified,sqlite,control').split(',');
/** The stores on the private PostgreSQL: checked (the default) and notified key changes (journal.keyChanges). */
const onPostgres = (store: string) => store.startsWith('postgresql');
const RUNS = [
  { workers: 1, rate: RATE },
  { workers: 2, rate: RATE },
  { workers: 1, rate: RATE / 2 },
  { workers: 2, rate: RATE },
  { workers: 1, rate: RATE },
];
const PLAINTEXT = JSON.stringify({ plaintextBase64: Buffer.alloc(1024, 7).toString('base64') });
const HEADERS = { 'x-svc-user': 'bench', 'content-type': 'application/json' };

const pgWork = mkdtempSync(path.join(tmpdir(), 'svc-bench-fixed-rate-pg-'));
const pg: Record<string, string> = STORES.some(onPostgres) ? startPrivatePostgres(pgWork) : {};
const psql = (sql: string) => execFileSync('psql', [pg.SVC_TEST_PG_ADMIN_URL!, '-Atqc', sql], { encoding: 'utf8' });

/** The store's settings for a fresh node: a new database, or new SQLite files in `dir`; none for the control. */
function storeEnv(store: string, dir: string, database: string): Record<string, string> {
  if (store === 'control') return { BENCH_BARE_WORK_ROUNDS: WORK_ROUNDS };
  if (store === 'sqlite') return sqliteStoreEnv(dir);
  const env = postgresStoreEnv(pg, database);
  return store === 'postgresql-notified' ? { ...env, SVC_JOURNAL_KEY_CHANGES: 'notified' } : env;
}

interface Row {
  store: string;
  workers: number;
  rate: number;
  nodeUs: number;
  databaseUs: number;
  transactions: number;
  generatorUs: number;
  p50: number;
  p99: number;
  errors: number;
}

async function measure(store: string, workers: number, rate: number, run: number): Promise<Row> {
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
    await openLoop(rate * 3, rate, send, () => {});
    const transactions = () =>
      onPostgres(store) ? Number(psql(`select xact_commit from pg_stat_database where datname = '${database}'`)) : 0;
    const databaseCpu = () => (onPostgres(store) ? cpuSecondsOfAll(pgrep(['-x', 'postgres'])) : 0);
    const node0 = treeCpuSeconds(child.pid!);
    const database0 = databaseCpu();
    const transactions0 = transactions();
    const generator0 = process.cpuUsage();
    const latencies: number[] = [];
    let errors = 0;
    await openLoop(rate * SECONDS, rate, send, (status, due) => {
      latencies.push(performance.now() - due);
      if (status !== 200) errors++;
    });
    const n = latencies.length;
    const generator = process.cpuUsage(generator0);
    latencies.sort((a, b) => a - b);
    const row = {
      store,
      workers,
      rate,
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
  for (const store of STORES)
    for (const { workers, rate } of RUNS) rows.push(await measure(store, workers, rate, ++run));
} finally {
  if (STORES.some(onPostgres)) stopPrivatePostgres(pgWork);
}

const f = (x: number, digits = 0) => x.toFixed(digits);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const lines = STORES.flatMap((store) => {
  const one = mean(rows.filter((r) => r.store === store && r.workers === 1 && r.rate === RATE).map((r) => r.nodeUs));
  return rows
    .filter((r) => r.store === store)
    .map(
      (r) =>
        `| ${store === 'control' ? `control: bare Koa + ${WORK_ROUNDS} rounds of work a request` : store} | ${r.workers} | ${f(r.rate)} | ${f(r.rate / r.workers)} | ${f(r.nodeUs)} (${f(r.nodeUs / one, 2)}x) | ${onPostgres(store) ? `${f(r.databaseUs)} | ${f(r.transactions, 2)}` : '- | -'} | ${f(r.generatorUs)} | ${f(r.p50, 1)} | ${f(r.p99, 1)} | ${r.errors} |`,
    );
});
const doc = [
  '# Benchmarks: a second worker at a fixed rate',
  '',
  '<!-- Written by `npm run bench:workers-fixed-rate`; numbers from the run described below. -->',
  '',
  `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${availableParallelism()} cores, nothing pinned. One node with 1 and with 2 workers, in`,
  `the order 1, 2, 2, 1, takes encrypt 1 KiB on a schedule at ${RATE} requests a second for ${SECONDS} s (after a 20 s closed-loop`,
  'warm-up), the same offered load either way, well below what the machine sustains: what changes between those rows',
  'is only how many processes share the load. Between them one worker takes half the rate alone: what each of two',
  'workers sees, in one process, with nothing for it to share. CPU is per request answered; "x" is over the mean of',
  "the node's two one-worker rows at the full rate. The control is bare Koa under node:cluster doing the same work for",
  `every request (${WORK_ROUNDS} rounds of a JSON copy of the body and a SHA-256 of its plaintext): what a second process costs in`,
  'Node and on this machine, with none of the service. postgresql-notified is PostgreSQL with notified key changes',
  '(SVC_JOURNAL_KEY_CHANGES=notified): no query before each use of a cached key.',
  '',
  '| store | workers | requests a second | a second per worker | node CPU µs a request | PostgreSQL CPU µs a request | PostgreSQL transactions a request | generator CPU µs a request | p50 ms | p99 ms | errors |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...lines,
  '',
].join('\n');
writeFileSync(path.join(ROOT, 'docs/benchmarks-workers-fixed-rate.md'), doc);
process.stdout.write(doc);
