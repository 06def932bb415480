import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { openLoop } from '../test/helpers/open-loop.ts';
import { activeKey, cpuSeconds, load, machine, PINNED, ROOT, start } from './lib/harness.ts';

/**
 * `npm run bench:open-loop`: what the service does under traffic that arrives on its own schedule, as
 * independent clients do. For each server (bare Koa as the control, the service in memory and on SQLite),
 * after a 10 s warm-up: a closed-loop load (autocannon, 50 connections) measures the rate it sustains, then
 * the same process takes requests started at BENCH_OPEN_LOOP_SHARE (default 80%) of that rate for
 * BENCH_OPEN_LOOP_SECONDS (default 60), whatever the answers; latency is measured from when each request
 * was due. Goals: p99 under 50 ms, no growth of the requests in flight over the run, and CPU per request
 * within 10% of the closed loop's. Writes docs/benchmarks-open-loop.md.
 */
const SHARE = Number(process.env.BENCH_OPEN_LOOP_SHARE ?? 0.8);
const SECONDS = Number(process.env.BENCH_OPEN_LOOP_SECONDS ?? 60);
const CLOSED_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PLAINTEXT = { plaintextBase64: Buffer.alloc(1024, 7).toString('base64') };
const BODY = JSON.stringify(PLAINTEXT);
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-open-loop-'));

interface Storage {
  name: string;
  env: () => Record<string, string>;
  /** The control: bare Koa echoing the same body, to tell the machine's part of the cost from the service's. */
  bare?: boolean;
}

const STORAGES: Storage[] = [
  { name: 'bare Koa JSON echo (the control)', env: () => ({}), bare: true },
  {
    name: 'in-memory journal, audit to stdout (a file)',
    env: () => ({ SVC_JOURNAL_KIND: 'in-memory', SVC_AUDIT_KIND: 'stdout' }),
  },
  {
    name: 'SQLite journal and audit (rdb-embedded)',
    env: () => {
      const dir = mkdtempSync(path.join(work, 'sqlite-'));
      return {
        SVC_JOURNAL_KIND: 'rdb-embedded',
        SVC_AUDIT_KIND: 'rdb-embedded',
        SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(dir, 'journal.db')}`,
        SVC_AUDIT_EMBEDDED_PATH: path.join(dir, 'audit.db'),
      };
    },
  },
];

interface Result {
  storage: string;
  closedRps: number;
  closedCpuPerRequestMs: number;
  rate: number;
  answered: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
  cpuPerRequestMs: number;
  inFlightFirst: number;
  inFlightLast: number;
  /** CPU of this process (the load generator) per second of the open loop: near 1, the generator is what lags. */
  generatorCores: number;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Runs `run` against a warmed-up server, with the path it loads: the service's encrypt, or the control's echo. */
async function withService<T>(
  storage: Storage,
  run: (url: string, pid: number, urlPath: string) => Promise<T>,
): Promise<T> {
  const entry = storage.bare ? 'bench/bare-koa.ts' : 'app/main.ts';
  const svc = await start(
    [entry],
    { SVC_HTTP_HOST: '127.0.0.1', SVC_HTTP_PORT: '0', ...storage.env() },
    path.join(work, 'stdout.jsonl'),
  );
  try {
    const urlPath = storage.bare
      ? '/echo'
      : `/v1/keys/${await activeKey(svc.url, { algorithm: 'AES', sizeBits: 256 })}/encrypt`;
    await load('warm-up', `${svc.url}${urlPath}`, PLAINTEXT, 10);
    return await run(svc.url, svc.child.pid!, urlPath);
  } finally {
    svc.child.kill('SIGTERM');
  }
}

const CLIENT_CONNECTIONS = 64;

async function send(pool: Pool, urlPath: string): Promise<number> {
  const res = await pool.request({
    path: urlPath,
    method: 'POST',
    headers: { 'x-svc-user': 'bench', 'content-type': 'application/json' },
    body: BODY,
  });
  await res.body.text();
  return res.statusCode;
}

async function measure(storage: Storage): Promise<Result> {
  // One service for both loads: the closed loop warms it further, and the open loop then meets the same process.
  return withService(storage, async (url, pid, urlPath) => {
    const closed = await load(`closed loop, ${storage.name}`, `${url}${urlPath}`, PLAINTEXT, CLOSED_SECONDS, pid);
    const rate = closed.rps * SHARE;
    // Connections opened before the clock starts, as a client's pool holds them: opening them under load
    // would measure TCP handshakes. A request beyond them waits in the pool, and that wait counts.
    const pool = new Pool(url, { connections: CLIENT_CONNECTIONS, pipelining: 1, keepAliveTimeout: 120_000 });
    await Promise.all(Array.from({ length: CLIENT_CONNECTIONS }, () => send(pool, urlPath)));
    const latencies: number[] = [];
    let errors = 0;
    let inFlight = 0;
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(inFlight), 100);
    const cpu0 = cpuSeconds(pid);
    const generator0 = process.cpuUsage();
    const t0 = performance.now();
    const n = Math.round(rate * SECONDS);
    process.stderr.write(`open loop, ${storage.name}: ${n} requests at ${rate.toFixed(0)} a second\n`);
    await openLoop(
      n,
      rate,
      async () => {
        inFlight++;
        try {
          return await send(pool, urlPath);
        } catch {
          return 0;
        } finally {
          inFlight--;
        }
      },
      (status, due) => {
        latencies.push(performance.now() - due);
        if (status !== 200) errors++;
      },
    );
    clearInterval(sampler);
    const cpu = cpuSeconds(pid) - cpu0;
    const generator = process.cpuUsage(generator0);
    const generatorCores = (generator.user + generator.system) / 1000 / (performance.now() - t0);
    await pool.close();
    const sorted = latencies.sort((a, b) => a - b);
    const tenSeconds = Math.min(100, Math.floor(samples.length / 3));
    const result = {
      storage: storage.name,
      closedRps: closed.rps,
      closedCpuPerRequestMs: 1000 / closed.perCpuSecond,
      rate,
      answered: latencies.length,
      errors,
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      max: sorted.at(-1) ?? 0,
      cpuPerRequestMs: (cpu * 1000) / latencies.length,
      inFlightFirst: mean(samples.slice(0, tenSeconds)),
      inFlightLast: mean(samples.slice(-tenSeconds)),
      generatorCores,
    };
    process.stderr.write(
      `  p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, CPU ${result.cpuPerRequestMs.toFixed(3)} ms a request (closed loop ${result.closedCpuPerRequestMs.toFixed(3)})\n`,
    );
    return result;
  });
}

const results: Result[] = [];
for (const storage of STORAGES) results.push(await measure(storage));

const f = (x: number, d = 1) => x.toFixed(d);
const cpuRatio = (r: Result) => r.cpuPerRequestMs / r.closedCpuPerRequestMs;
const control = results.find((r) => r.storage.startsWith('bare Koa'));
const verdict = (r: Result) => {
  const goals = [r.p99 < 50, r.inFlightLast <= Math.max(2, r.inFlightFirst * 1.5), cpuRatio(r) <= 1.1, r.errors === 0];
  return `${goals.every(Boolean) ? 'met' : 'not met'}`;
};
const doc = [
  '# Benchmarks: open-loop load',
  '',
  '<!-- Written by `npm run bench:open-loop`; numbers from the run described below. -->',
  '',
  `${machine()}, ${cpus().length} cores${PINNED ? ', the server pinned to core 0 and the load generator to core 1' : ''}. For each server, after a 10 s`,
  `warm-up, a closed-loop load (autocannon, 50 connections, ${CLOSED_SECONDS} s) measures what encrypt 1 KiB sustains (the control: bare`,
  `Koa echoing the same body); the same server then gets requests started on a schedule at ${f(SHARE * 100, 0)}% of that rate for ${SECONDS} s,`,
  `whatever the answers (open loop, as independent clients arrive), over ${CLIENT_CONNECTIONS} keep-alive connections opened beforehand, each request timed`,
  'from when it was due. Goals: p99 under 50 ms, the requests in flight ' +
    'in the last 10 s no more than in the first 10 s (they',
  "grow when the server falls behind), CPU per request within 10% of the closed loop's, no errors.",
  '',
  '| server | closed loop req/s | open-loop rate | answered | errors | ' +
    'p50 ms | p99 ms | max ms | in flight, first / last 10 s | CPU ms a ' +
    'request, open / closed | generator cores | goals |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...results.map(
    (r) =>
      `| ${r.storage} | ${f(r.closedRps, 0)} | ${f(r.rate, 0)} | ${r.answered} | ${r.errors} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.max)} | ${f(r.inFlightFirst)} / ${f(r.inFlightLast)} | ${f(r.cpuPerRequestMs, 3)} / ${f(r.closedCpuPerRequestMs, 3)} (${f(cpuRatio(r), 2)}x) | ${f(r.generatorCores, 2)} | ${verdict(r)} |`,
  ),
  '',
  ...(control
    ? [
        `Reading it: the control pays ${f(cpuRatio(control), 2)}x its closed-loop CPU per request under the open loop, with nothing of the`,
        'service in it: a server that is idle between requests wakes for each ' +
          'one (a system call and cold caches per request instead',
        'of many requests per wake-up), which no code of the service adds or ' +
          "can remove. The service's own part is its ratio over the",
        `control's: ${results
          .filter((r) => r !== control)
          .map((r) => `${r.storage} ${f(cpuRatio(r) / cpuRatio(control), 2)}x`)
          .join(', ')}.`,
        'A "generator cores" value near 1 means the load generator (one Node ' +
          'thread) lagged behind its schedule, and the latency',
        'columns then measure it as much as the server.',
        '',
      ]
    : []),
];
writeFileSync(path.join(ROOT, 'docs/benchmarks-open-loop.md'), doc.join('\n'));
process.stderr.write('docs/benchmarks-open-loop.md written\n');
